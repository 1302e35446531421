/*
Copyright 2026 The runtime-sdk-controller Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package localcluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

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

// Ports FreePort hands out lie from firstFreePort up to the kernel's
// ephemeral range: above the in-memory provider's fixed ports (19000, and
// 20000 with one more per workload cluster), below every port an outgoing
// connection can be given.
const firstFreePort = 24000

// handedOut are the ports FreePort returned in this process, never returned
// twice: two picks before either is bound would otherwise race. Each is also
// held reserved, for as long as this process lives, by a lock on a file in
// reservationDir: a test and the tools it starts (rsc-dev, a manager's
// control plane) each pick ports, and a port one of them picked and has not
// bound yet must not be handed to the other.
var handedOut = struct {
	sync.Mutex
	ports    map[int]bool
	reserved []*os.File
}{ports: map[int]bool{}}

// reservationDir holds one lock file per port handed out on this machine.
var reservationDir = filepath.Join(os.TempDir(), "rsc-localcluster-ports")

// FreePort returns a TCP port that was free on every address a moment ago,
// for a process the caller starts to listen on. It is picked below the
// kernel's ephemeral range (net.ipv4.ip_local_port_range): a port from inside
// it, such as listening on port 0 returns, can be given to any outgoing
// connection before that process binds it, which then fails with "address
// already in use" (Cluster API's test extension did, binding all addresses).
// No other process calling FreePort gets it while this one lives.
func FreePort() (int, error) {
	return freePortIn(firstFreePort, ephemeralPortsStart())
}

// freePortIn picks a free, unreserved port in [low, high).
func freePortIn(low, high int) (int, error) {
	handedOut.Lock()
	defer handedOut.Unlock()
	if err := os.MkdirAll(reservationDir, 0o755); err != nil {
		return 0, fmt.Errorf("port reservations: %w", err)
	}
	// Shared like /tmp, whoever made it; only its owner can widen it.
	_ = os.Chmod(reservationDir, 0o777|os.ModeSticky)
	for range 200 {
		port := low + rand.IntN(high-low)
		if handedOut.ports[port] {
			continue
		}
		lock, err := reserve(port)
		if err != nil {
			return 0, err
		}
		if lock == nil {
			continue
		}
		l, err := net.Listen("tcp", ":"+strconv.Itoa(port))
		if err != nil {
			_ = lock.Close()
			continue
		}
		if err := l.Close(); err != nil {
			_ = lock.Close()
			return 0, err
		}
		handedOut.ports[port] = true
		handedOut.reserved = append(handedOut.reserved, lock)
		return port, nil
	}
	return 0, fmt.Errorf("no free port between %d and %d after 200 tries", low, high)
}

// reserve takes port's lock file, or returns nil when another process holds
// it. The kernel drops the lock when this process exits, however it exits.
func reserve(port int) (*os.File, error) {
	path := filepath.Join(reservationDir, strconv.Itoa(port))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, fmt.Errorf("reserve port %d: %w", port, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, nil
		}
		return nil, fmt.Errorf("reserve port %d: %w", port, err)
	}
	return f, nil
}

// ephemeralPortsStart is the first port of the kernel's ephemeral range, or
// Linux's default, 32768, when the range cannot be read or leaves no room
// above firstFreePort.
func ephemeralPortsStart() int {
	const linuxDefault = 32768
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return linuxDefault
	}
	fields := strings.Fields(string(data))
	if len(fields) != 2 {
		return linuxDefault
	}
	start, err := strconv.Atoi(fields[0])
	if err != nil || start <= firstFreePort+1000 {
		return linuxDefault
	}
	return start
}

func portFree(port int) error {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return fmt.Errorf("port %d on 127.0.0.1 is in use", port)
	}
	return l.Close()
}
