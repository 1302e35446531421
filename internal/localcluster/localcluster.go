package localcluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/toolbin"
)

// Options configure a local control plane.
type Options struct {
	// Dir holds everything the control plane keeps: etcd data, certificates,
	// ports, logs and the kubeconfig. It is created when missing.
	Dir string
	// BinDir holds etcd and kube-apiserver, as built by `make tools`.
	BinDir string
	// APIServerPort is the kube-apiserver's port on 127.0.0.1. Zero reuses
	// the port of the previous run in Dir, or picks a free one.
	APIServerPort int
	// CRDs are applied (server-side) once the apiserver is ready.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// StartTimeout bounds how long Start waits for each process to be ready.
	StartTimeout time.Duration
	// AuditLog makes kube-apiserver record every request it completes,
	// with its user, verb and object, at AuditLogPath: the one count of
	// what each client sent that no client keeps itself.
	AuditLog bool
}

// Cluster is a running local control plane.
type Cluster struct {
	opts      Options
	pki       pki
	state     ports
	etcd      *process
	apiserver *process
	config    *rest.Config
}

// ports are remembered in the data directory so that a restart serves the
// same address the kubeconfig names and etcd finds its peer URL unchanged.
type ports struct {
	APIServer  int `json:"apiserver"`
	EtcdClient int `json:"etcdClient"`
	EtcdPeer   int `json:"etcdPeer"`
}

// stopGrace is how long a process gets to shut down cleanly before it is
// killed; etcd flushes its WAL on SIGTERM.
const stopGrace = 20 * time.Second

// Start checks the binaries and the data directory, starts etcd and
// kube-apiserver, waits until both are ready, installs the CRDs and writes
// the kubeconfig. On failure nothing is left running.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.StartTimeout == 0 {
		opts.StartTimeout = time.Minute
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("data directory %q: %w", opts.Dir, err)
	}
	opts.Dir = dir
	if err := toolbin.CheckAll(opts.BinDir, toolbin.Etcd, toolbin.KubeAPIServer); err != nil {
		return nil, err
	}
	if err := ensureWritableDir(dir); err != nil {
		return nil, err
	}
	for _, sub := range []string{"etcd", "logs", "run"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return nil, fmt.Errorf("data directory %s: %w", dir, err)
		}
	}

	c := &Cluster{opts: opts, pki: pki{dir: filepath.Join(dir, "pki")}}
	if err := c.pki.ensure(); err != nil {
		return nil, fmt.Errorf("certificates in %s: %w", c.pki.dir, err)
	}
	if c.state, err = c.loadPorts(); err != nil {
		return nil, err
	}
	if err := c.saveFile("ports.json", c.state); err != nil {
		return nil, err
	}
	c.config = c.restConfig()
	if err := c.checkFree(); err != nil {
		return nil, err
	}

	if err := c.startEtcd(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	if err := c.StartAPIServer(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	if err := installCRDs(ctx, c.config, opts.CRDs, opts.StartTimeout); err != nil {
		c.Stop()
		return nil, err
	}
	if err := c.writeKubeconfig(); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// AuditLogPath is where kube-apiserver writes its audit events, one JSON
// object per line, with Options.AuditLog.
func (c *Cluster) AuditLogPath() string { return filepath.Join(c.opts.Dir, "logs", "audit.log") }

// Config returns a client configuration with cluster-admin rights.
func (c *Cluster) Config() *rest.Config { return rest.CopyConfig(c.config) }

// KubeconfigPath is the file that `export KUBECONFIG=...` should name.
func (c *Cluster) KubeconfigPath() string { return filepath.Join(c.opts.Dir, "kubeconfig") }

// Dir is the data directory.
func (c *Cluster) Dir() string { return c.opts.Dir }

// PIDs returns the process ids of etcd and kube-apiserver (0 when not running).
func (c *Cluster) PIDs() (etcd, apiserver int) {
	return c.etcd.pid(), c.apiserver.pid()
}

// Stop stops kube-apiserver, then etcd. It is safe to call more than once.
func (c *Cluster) Stop() error {
	return errors.Join(c.StopAPIServer(), c.stopEtcd())
}

func (c *Cluster) stopEtcd() error {
	if c.etcd == nil {
		return nil
	}
	return c.etcd.stop(stopGrace)
}

// StopAPIServer stops only kube-apiserver, leaving etcd and the data in
// place, so tests can watch clients ride out an apiserver outage.
func (c *Cluster) StopAPIServer() error {
	if c.apiserver == nil {
		return nil
	}
	return c.apiserver.stop(stopGrace)
}

// KillAPIServer kills kube-apiserver at once (SIGKILL), as a crash or an
// OOM kill would, leaving etcd and the data in place. Unlike StopAPIServer
// it does not wait for the graceful shutdown, which holds on to open watches
// for up to a minute.
func (c *Cluster) KillAPIServer() error {
	if c.apiserver == nil {
		return nil
	}
	return c.apiserver.kill()
}

// StartAPIServer starts kube-apiserver against the running etcd and waits
// until it reports ready.
func (c *Cluster) StartAPIServer(ctx context.Context) error {
	if err := portFree(c.state.APIServer); err != nil {
		return fmt.Errorf("kube-apiserver: %w (pass another port, or stop what holds it)", err)
	}
	p := c.pki
	c.apiserver = &process{
		name:    toolbin.KubeAPIServer,
		binary:  filepath.Join(c.opts.BinDir, toolbin.KubeAPIServer),
		logPath: filepath.Join(c.opts.Dir, "logs", "kube-apiserver.log"),
		pidPath: filepath.Join(c.opts.Dir, "run", "kube-apiserver.pid"),
		// Orphaned, its graceful shutdown would hold open watches for up to
		// a minute for clients that died with us; it keeps no state of its
		// own (etcd does, and gets SIGTERM to flush it).
		deathSignal: syscall.SIGKILL,
		args: []string{
			"--etcd-servers=" + c.etcdURL(),
			"--bind-address=127.0.0.1",
			"--advertise-address=127.0.0.1",
			// No kube-controller-manager maintains the kubernetes Service's
			// endpoints here, and the lease reconciler refuses loopback.
			"--endpoint-reconciler-type=none",
			"--secure-port=" + strconv.Itoa(c.state.APIServer),
			"--tls-cert-file=" + p.servingCert(),
			"--tls-private-key-file=" + p.servingKey(),
			"--client-ca-file=" + p.caCert(),
			"--authorization-mode=RBAC",
			"--service-account-issuer=https://kubernetes.default.svc",
			"--service-account-key-file=" + p.serviceAccountPub(),
			"--service-account-signing-key-file=" + p.serviceAccountKey(),
			"--service-cluster-ip-range=10.96.0.0/24",
			"--allow-privileged=true",
		},
	}
	if c.opts.AuditLog {
		policy := filepath.Join(c.opts.Dir, "audit-policy.yaml")
		if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
			return fmt.Errorf("write audit policy: %w", err)
		}
		c.apiserver.args = append(c.apiserver.args,
			"--audit-policy-file="+policy,
			"--audit-log-path="+c.AuditLogPath(),
			"--audit-log-format=json",
			// Written before the response is sent, so a count read after
			// a client's request returned includes it.
			"--audit-log-mode=blocking",
		)
	}
	if err := c.apiserver.start(); err != nil {
		return err
	}
	client, err := rest.HTTPClientFor(c.config)
	if err != nil {
		return err
	}
	return waitReady(ctx, c.apiserver, c.opts.StartTimeout, client, c.config.Host+"/readyz")
}

// auditPolicy records every request once it completes (and a watch once
// it starts), with its user, verb and object but no bodies.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages:
- RequestReceived
rules:
- level: Metadata
`

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

func (c *Cluster) startEtcd(ctx context.Context) error {
	peerURL := "http://127.0.0.1:" + strconv.Itoa(c.state.EtcdPeer)
	c.etcd = &process{
		name:    toolbin.Etcd,
		binary:  filepath.Join(c.opts.BinDir, toolbin.Etcd),
		logPath: filepath.Join(c.opts.Dir, "logs", "etcd.log"),
		pidPath: filepath.Join(c.opts.Dir, "run", "etcd.pid"),
		args: []string{
			"--name=local",
			"--data-dir=" + filepath.Join(c.opts.Dir, "etcd"),
			"--listen-client-urls=" + c.etcdURL(),
			"--advertise-client-urls=" + c.etcdURL(),
			"--listen-peer-urls=" + peerURL,
			"--initial-advertise-peer-urls=" + peerURL,
			"--initial-cluster=local=" + peerURL,
			"--log-level=warn",
		},
	}
	if err := c.etcd.start(); err != nil {
		return err
	}
	return waitReady(ctx, c.etcd, c.opts.StartTimeout, http.DefaultClient, c.etcdURL()+"/health")
}

func (c *Cluster) etcdURL() string { return "http://127.0.0.1:" + strconv.Itoa(c.state.EtcdClient) }

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
		free, err := freePort()
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

func (c *Cluster) restConfig() *rest.Config {
	return &rest.Config{
		Host: "https://127.0.0.1:" + strconv.Itoa(c.state.APIServer),
		TLSClientConfig: rest.TLSClientConfig{
			CAFile:   c.pki.caCert(),
			CertFile: c.pki.adminCert(),
			KeyFile:  c.pki.adminKey(),
		},
		QPS:   200,
		Burst: 400,
	}
}

// writeKubeconfig writes a kubeconfig that embeds the CA and admin
// credentials, so it keeps working when copied elsewhere on this machine.
func (c *Cluster) writeKubeconfig() error {
	return c.writeKubeconfigFor("runtime-sdk-local", c.pki.adminCert(), c.pki.adminKey(), c.KubeconfigPath())
}

// writeKubeconfigFor writes, at path, a kubeconfig of a context named name
// that embeds the CA and the client certificate and key at certPath and
// keyPath, readable by its owner only.
func (c *Cluster) writeKubeconfigFor(name, certPath, keyPath, path string) error {
	ca, err := os.ReadFile(c.pki.caCert())
	if err != nil {
		return err
	}
	cert, err := os.ReadFile(certPath)
	if err != nil {
		return err
	}
	key, err := os.ReadFile(keyPath)
	if err != nil {
		return err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: c.config.Host, CertificateAuthorityData: ca}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: "default"}
	cfg.CurrentContext = name
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	return os.Chmod(path, 0o600)
}

// ensureWritableDir creates dir and proves we can write into it, so an
// unwritable location fails now with its name, not later inside etcd.
func ensureWritableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("data directory %s cannot be created: %w", dir, errors.Unwrap(err))
	}
	probe, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return fmt.Errorf("data directory %s is not writable: %w", dir, errors.Unwrap(err))
	}
	probe.Close()
	return os.Remove(probe.Name())
}

func freePort() (int, error) {
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

// waitReady polls url until it answers 200, the process exits, or the
// timeout passes. A process that exits is reported with its log's last lines.
func waitReady(ctx context.Context, p *process, timeout time.Duration, client *http.Client, url string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()
	var lastErr error
	for {
		if ended, err := p.exited(); ended {
			return fmt.Errorf("%s exited during start-up (%v): %s (full log: %s)", p.name, err, p.lastError(), p.logPath)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			lastErr = fmt.Errorf("%s answered %s", url, resp.Status)
		} else {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready after %s (last: %v); see %s", p.name, timeout, lastErr, p.logPath)
		case <-ticker.C:
		}
	}
}
