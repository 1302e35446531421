package localcluster

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
)

// ports are remembered in the data directory so that a restart serves the
// same address the kubeconfig names and etcd finds its peer URL unchanged.
type ports struct {
	APIServer  int `json:"apiserver"`
	EtcdClient int `json:"etcdClient"`
	EtcdPeer   int `json:"etcdPeer"`
}

// checkFree fails when an earlier run on this directory is still alive or a
// port is taken, before anything is started.
func (c *Cluster) checkFree() error {
	for _, name := range []string{toolbin.Etcd, toolbin.KubeAPIServer} {
		pidPath := filepath.Join(c.opts.Dir, "run", name+".pid")
		if pid, alive := livePID(pidPath); alive {
			return fmt.Errorf("%s from an earlier run on %s is still running (pid %d): stop that run first", name, c.opts.Dir, pid)
		}
	}
	if err := portFree(c.state.APIServer); err != nil {
		return fmt.Errorf("kube-apiserver: %w (pass another port, or stop what holds it)", err)
	}
	for _, port := range []int{c.state.EtcdClient, c.state.EtcdPeer} {
		if err := portFree(port); err != nil {
			return fmt.Errorf("etcd: %w (stop what holds it, or `make clean-local` to pick new ports)", err)
		}
	}
	return nil
}

// loadPorts reads the ports of an earlier run, picks free ones for what is
// missing, and lets Options.APIServerPort override the apiserver's.
func (c *Cluster) loadPorts() (ports, error) {
	var state ports
	path := filepath.Join(c.opts.Dir, "ports.json")
	if data, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(data, &state); err != nil {
			return state, fmt.Errorf("%s does not parse (%v): delete it, or `make clean-local`", path, err)
		}
	}
	if c.opts.APIServerPort != 0 {
		state.APIServer = c.opts.APIServerPort
	}
	for _, port := range []*int{&state.APIServer, &state.EtcdClient, &state.EtcdPeer} {
		if *port != 0 {
			continue
		}
		free, err := FreePort()
		if err != nil {
			return state, fmt.Errorf("pick a free port: %w", err)
		}
		*port = free
	}
	return state, nil
}

func (c *Cluster) saveFile(name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(c.opts.Dir, name)
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func portFree(port int) error {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return fmt.Errorf("port %d on 127.0.0.1 is in use", port)
	}
	return l.Close()
}
