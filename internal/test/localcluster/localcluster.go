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
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
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
	// AuthorizationModes are kube-apiserver's --authorization-mode; empty
	// means RBAC alone. A node needs Node,RBAC. (A list flag appends, so
	// it cannot go through APIServerArgs: twice RBAC is refused.)
	AuthorizationModes []string
	// ServingIPs are addresses the apiserver's certificate names beside
	// loopback: a node's own address and the kubernetes Service's.
	ServingIPs []net.IP
	// APIServerArgs are added to kube-apiserver's flags on every start,
	// after ours. Tools turn on an audit log with them (package
	// localclustertest).
	APIServerArgs []string
}

// Cluster is a running local control plane.
type Cluster struct {
	opts      Options
	pki       pki
	state     ports
	etcd      *Process
	apiserver *Process
	config    *rest.Config
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

	c := &Cluster{opts: opts, pki: pki{dir: pkiDir(dir), servingIPs: opts.ServingIPs}}
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

// Config returns a client configuration with cluster-admin rights.
func (c *Cluster) Config() *rest.Config { return rest.CopyConfig(c.config) }

// Dir is the data directory.
func (c *Cluster) Dir() string { return c.opts.Dir }

// Stop stops kube-apiserver, then etcd. It is safe to call more than once.
func (c *Cluster) Stop() error {
	return errors.Join(c.StopAPIServer(), c.stopEtcd())
}

func (c *Cluster) stopEtcd() error {
	if c.etcd == nil {
		return nil
	}
	return c.etcd.Stop(stopGrace)
}

// StopAPIServer stops only kube-apiserver, leaving etcd and the data in
// place, so tests can watch clients ride out an apiserver outage.
func (c *Cluster) StopAPIServer() error {
	if c.apiserver == nil {
		return nil
	}
	return c.apiserver.Stop(stopGrace)
}

// StartAPIServer starts kube-apiserver against the running etcd and waits
// until it reports ready.
func (c *Cluster) StartAPIServer(ctx context.Context) error {
	if err := portFree(c.state.APIServer); err != nil {
		return fmt.Errorf("kube-apiserver: %w (pass another port, or stop what holds it)", err)
	}
	p := c.pki
	c.apiserver = &Process{
		Name:    toolbin.KubeAPIServer,
		Binary:  filepath.Join(c.opts.BinDir, toolbin.KubeAPIServer),
		LogPath: filepath.Join(c.opts.Dir, "logs", "kube-apiserver.log"),
		PIDPath: filepath.Join(c.opts.Dir, "run", "kube-apiserver.pid"),
		// Orphaned, its graceful shutdown would hold open watches for up to
		// a minute for clients that died with us; it keeps no state of its
		// own (etcd does, and gets SIGTERM to flush it).
		DeathSignal: syscall.SIGKILL,
		Args: []string{
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
			"--authorization-mode=" + cmp.Or(strings.Join(c.opts.AuthorizationModes, ","), "RBAC"),
			"--service-account-issuer=https://kubernetes.default.svc",
			"--service-account-key-file=" + p.serviceAccountPub(),
			"--service-account-signing-key-file=" + p.serviceAccountKey(),
			"--service-cluster-ip-range=10.96.0.0/24",
			"--allow-privileged=true",
		},
	}
	c.apiserver.Args = append(c.apiserver.Args, c.opts.APIServerArgs...)
	if err := c.apiserver.Start(); err != nil {
		return err
	}
	client, err := rest.HTTPClientFor(c.config)
	if err != nil {
		return err
	}
	return c.apiserver.WaitReady(ctx, c.opts.StartTimeout, client, c.config.Host+"/readyz")
}

func (c *Cluster) startEtcd(ctx context.Context) error {
	peerURL := "http://127.0.0.1:" + strconv.Itoa(c.state.EtcdPeer)
	c.etcd = &Process{
		Name:    toolbin.Etcd,
		Binary:  filepath.Join(c.opts.BinDir, toolbin.Etcd),
		LogPath: filepath.Join(c.opts.Dir, "logs", "etcd.log"),
		PIDPath: filepath.Join(c.opts.Dir, "run", "etcd.pid"),
		Args: []string{
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
	if err := c.etcd.Start(); err != nil {
		return err
	}
	return c.etcd.WaitReady(ctx, c.opts.StartTimeout, http.DefaultClient, c.etcdURL()+"/health")
}

func (c *Cluster) etcdURL() string { return "http://127.0.0.1:" + strconv.Itoa(c.state.EtcdClient) }

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
