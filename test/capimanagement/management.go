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

package capimanagement

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/localclustertest"
)

// FeatureGates are those every process of the management cluster runs
// with, not only the core manager: KCP's webhook validates taints under
// MachineTaintPropagation, and the KubeadmControlPlaneTemplate and
// DevClusterTemplate webhooks require ClusterTopology in their own process.
const FeatureGates = "ClusterTopology=true,RuntimeSDK=true,MachineTaintPropagation=true"

// Options start a management cluster.
type Options struct {
	// BinDir holds the control plane's binaries, bin/capi-baseline and
	// what `make capi-providers` builds.
	BinDir string
	// Dir receives the control plane's data, certificates and every
	// process's log (logs/<name>.log).
	Dir string
	// CoreManager is the core manager's binary; empty runs Cluster API's
	// own, bin/capi-baseline.
	CoreManager string
	// LeaderElection runs the core manager as Cluster API's Deployment
	// does, with --leader-elect and its Lease in LeaseNamespace, so that
	// more replicas can stand by (StartCoreReplica). It takes root: the
	// manager finds its namespace in a mount of its own (test/incluster).
	LeaderElection bool
	// CoreManagerArgs are extra flags of the core manager.
	CoreManagerArgs []string
	// AuditLog makes kube-apiserver record every request, by user: each
	// process here is a user of its own name.
	AuditLog bool
	// StartTimeout bounds the control plane's start and each provider's;
	// zero means three minutes, sized for two loaded cores. The core
	// manager's start has bounds of its own (capibaseline.Start).
	StartTimeout time.Duration
	// WorkloadClusters is how many workload clusters' ports (from
	// FirstWorkloadPort up) Start checks are free, with DebugPort, before
	// it starts anything; zero means one.
	WorkloadClusters int
	// TestExtensionPort is the port Cluster API's test extension serves its
	// hooks on; zero picks a free one.
	TestExtensionPort int
	// Progress, when set, is told in one line each as every process is
	// ready, with how long its start took, and as each is stopped: the
	// start of a whole management cluster takes a minute or more.
	Progress io.Writer
}

// defaultStartTimeout bounds a process's start, sized for two loaded cores.
const defaultStartTimeout = 3 * time.Minute

// Process names, which are also their users on the control plane and
// their log files' names.
const (
	CoreManagerName    = "core-manager"
	BootstrapName      = "capi-kubeadm-bootstrap"
	ControlPlaneName   = "capi-kubeadm-control-plane"
	InfrastructureName = "capi-in-memory"
	TestExtensionName  = "capi-test-extension"
)

// ProcessNames lists every process of a management cluster, in start order.
var ProcessNames = []string{CoreManagerName, BootstrapName, ControlPlaneName, InfrastructureName, TestExtensionName}

// Management is a running management cluster.
type Management struct {
	// Cluster is the local control plane.
	Cluster *localcluster.Cluster
	// Client is a cluster-admin of its own, user "e2e", and Config its
	// connection, for a watch of the same user.
	Client client.Client
	Config *rest.Config
	// ExtensionURL and ExtensionCA are where Cluster API's test extension
	// serves its hooks and the CA its certificate is signed by.
	ExtensionURL string
	ExtensionCA  []byte
	// AuditLogPath is kube-apiserver's audit log, with Options.AuditLog.
	AuditLogPath string

	dir  string
	lock *portLock
	// core is the core manager that leads, or the only one; standbys are
	// the other replicas, and coreStart how each is started.
	core      *capibaseline.Manager
	standbys  []*capibaseline.Manager
	coreStart capibaseline.Options
	// leaderElection is Options.LeaderElection.
	leaderElection bool
	providers      []*namedProcess
	progress       io.Writer
}

type namedProcess struct {
	name string
	*managerprocess.Process
}

// Start brings up the control plane with every provider's CRDs and
// webhooks, then the core manager, CABPK, KCP, the in-memory provider and
// the test extension, and waits until each is ready. A process that does
// not become ready fails Start with the last lines of its log. On failure
// nothing is left running.
func Start(ctx context.Context, opts Options) (*Management, error) {
	if opts.StartTimeout == 0 {
		opts.StartTimeout = defaultStartTimeout
	}
	if err := Check(opts.BinDir); err != nil {
		return nil, err
	}
	lock, err := lockPorts(ctx, lockFile, opts.WorkloadClusters)
	if err != nil {
		return nil, err
	}
	m := &Management{dir: opts.Dir, lock: lock, progress: opts.Progress}
	if err := m.start(ctx, opts); err != nil {
		m.Stop()
		return nil, err
	}
	return m, nil
}

// start is Start once the ports are locked; whatever it started, Stop
// stops.
func (m *Management) start(ctx context.Context, opts Options) error {
	if err := os.MkdirAll(filepath.Join(opts.Dir, "logs"), 0o755); err != nil {
		return err
	}
	// One throw-away certificate for 127.0.0.1 serves every process,
	// each from a certificate directory of its own.
	caPEM, certPEM, keyPEM, err := sampleextension.SelfSignedCertificate([]string{"127.0.0.1", "localhost"}, 24*time.Hour)
	if err != nil {
		return err
	}
	extension, err := newTestExtension(opts.Dir, opts.TestExtensionPort)
	if err != nil {
		return err
	}
	m.ExtensionURL, m.ExtensionCA = extension.URL, extension.CA
	names := []string{CoreManagerName, BootstrapName, ControlPlaneName, InfrastructureName}
	endpoints := map[string]endpoint{TestExtensionName: extension.endpoint}
	for _, name := range names {
		if endpoints[name], err = newEndpoint(filepath.Join(opts.Dir, "certs", name), certPEM, keyPEM); err != nil {
			return err
		}
	}
	servedBy := map[Provider]string{Core: CoreManagerName, Bootstrap: BootstrapName, ControlPlane: ControlPlaneName, Infrastructure: InfrastructureName}

	started := time.Now()
	if err := m.startControlPlane(ctx, opts, servedBy, endpoints, caPEM); err != nil {
		return err
	}
	m.ready("control plane (etcd, kube-apiserver, every provider's CRDs and webhooks)", started)
	started = time.Now()
	if err := m.startCoreManager(ctx, opts, endpoints[CoreManagerName]); err != nil {
		return err
	}
	m.ready(CoreManagerName, started)
	for _, p := range []struct {
		name, binary string
		env          []string
	}{
		{BootstrapName, BootstrapBinary, nil},
		{ControlPlaneName, ControlPlaneBinary, nil},
		// Each workload cluster's controlPlaneEndpoint: only ever loopback.
		{InfrastructureName, InfrastructureBinary, []string{"POD_IP=127.0.0.1"}},
		{TestExtensionName, TestExtensionBinary, nil},
	} {
		started := time.Now()
		if err := m.startProvider(ctx, opts, p.name, p.binary, p.env, endpoints[p.name]); err != nil {
			return err
		}
		m.ready(p.name, started)
	}
	return nil
}

// ready tells Progress that part is ready, and how long it took.
func (m *Management) ready(part string, since time.Time) {
	if m.progress != nil {
		fmt.Fprintf(m.progress, "%s ready (%s)\n", part, time.Since(since).Round(100*time.Millisecond))
	}
}

// stopping tells Progress that name is being stopped, runs stop, and then
// tells it that name is gone.
func (m *Management) stopping(name string, stop func()) {
	if m.progress != nil {
		fmt.Fprintf(m.progress, "stopping %s\n", name)
	}
	stop()
	if m.progress != nil {
		fmt.Fprintf(m.progress, "%s stopped\n", name)
	}
}

// startControlPlane starts etcd and kube-apiserver with every provider's
// CRDs, and registers every provider's webhooks, all pointing at the
// process that serves them.
func (m *Management) startControlPlane(ctx context.Context, opts Options, servedBy map[Provider]string, endpoints map[string]endpoint, caPEM []byte) error {
	var crds []*apiextensionsv1.CustomResourceDefinition
	webhooks := map[Provider]Webhook{}
	for _, p := range Providers {
		webhooks[p] = Webhook{Port: endpoints[servedBy[p]].webhook, CAPEM: caPEM}
		w := webhooks[p]
		providerCRDs, err := CRDs(opts.BinDir, p, &w)
		if err != nil {
			return err
		}
		crds = append(crds, providerCRDs...)
	}
	var err error
	clusterOpts := localcluster.Options{
		Dir: filepath.Join(opts.Dir, "control-plane"), BinDir: opts.BinDir, CRDs: crds,
		StartTimeout: opts.StartTimeout,
	}
	if opts.AuditLog {
		if m.AuditLogPath, err = localclustertest.AuditLog(&clusterOpts); err != nil {
			return err
		}
	}
	m.Cluster, err = localcluster.Start(ctx, clusterOpts)
	if err != nil {
		return err
	}
	if _, m.Config, err = localclustertest.User(m.Cluster, "e2e"); err != nil {
		return err
	}
	if m.Client, err = client.New(m.Config, client.Options{Scheme: scheme.New()}); err != nil {
		return err
	}
	for _, p := range Providers {
		configurations, err := WebhookConfigurations(opts.BinDir, p, webhooks[p])
		if err != nil {
			return err
		}
		for _, c := range configurations {
			// Names are per provider and the control plane is fresh: a
			// clash would drop one provider's webhooks, so it fails.
			if err := m.Client.Create(ctx, c); err != nil {
				return fmt.Errorf("register %s %s: %w", c.GetKind(), c.GetName(), err)
			}
		}
	}
	return nil
}

// startCoreManager runs the core manager under test, or Cluster API's own.
func (m *Management) startCoreManager(ctx context.Context, opts Options, e endpoint) error {
	kubeconfig, _, err := localclustertest.User(m.Cluster, CoreManagerName)
	if err != nil {
		return err
	}
	m.coreStart = capibaseline.Options{
		BinDir: opts.BinDir, Binary: opts.CoreManager, Kubeconfig: kubeconfig, LogPath: m.LogPath(CoreManagerName),
		WebhookPort: e.webhook, WebhookCertDir: e.certDir,
		Args: append([]string{"--feature-gates=" + FeatureGates}, opts.CoreManagerArgs...),
	}
	if opts.LeaderElection {
		if err := m.runAsInCluster(ctx); err != nil {
			return err
		}
	}
	m.core, err = capibaseline.Start(ctx, m.coreStart)
	if err != nil {
		return withLogTail(err, m.coreStart.LogPath)
	}
	return nil
}

// startProvider runs one of Cluster API's other binaries as a user of its
// own name.
func (m *Management) startProvider(ctx context.Context, opts Options, name, binary string, env []string, e endpoint) error {
	kubeconfig, _, err := localclustertest.User(m.Cluster, name)
	if err != nil {
		return err
	}
	p, err := startProvider(ctx, opts.BinDir, binary, kubeconfig, m.LogPath(name), env, e, opts.StartTimeout)
	if err != nil {
		return err
	}
	m.providers = append(m.providers, &namedProcess{name: name, Process: p})
	return nil
}

// LogPath is where the process of that name logs.
func (m *Management) LogPath(name string) string {
	return filepath.Join(m.dir, "logs", name+".log")
}

// Exited names the first process that has ended, if any: a provider that
// crashes mid-flow should fail a wait at once, not at its deadline.
func (m *Management) Exited() error {
	for _, core := range m.cores() {
		if exited, err := core.Exited(); exited {
			return withLogTail(fmt.Errorf("%s exited: %w", CoreManagerName, err), core.LogPath())
		}
	}
	for _, p := range m.providers {
		if exited, err := p.Exited(); exited {
			return withLogTail(fmt.Errorf("%s exited: %w", p.name, err), m.LogPath(p.name))
		}
	}
	return nil
}

// Stop stops the providers, then the core manager, then the control plane,
// and releases the in-memory provider's ports. It is safe on a partly
// started management cluster.
func (m *Management) Stop() {
	for i := len(m.providers) - 1; i >= 0; i-- {
		m.stopping(m.providers[i].name, m.providers[i].Stop)
	}
	m.providers = nil
	for _, core := range m.cores() {
		m.stopping(replicaName(core), core.Stop)
	}
	m.core, m.standbys = nil, nil
	if m.Cluster != nil {
		m.stopping("kube-apiserver", func() { _ = m.Cluster.StopAPIServer() })
		// kube-apiserver is gone by now: Stop ends etcd alone.
		m.stopping("etcd", func() { _ = m.Cluster.Stop() })
		m.Cluster = nil
	}
	if m.lock != nil {
		m.lock.unlock()
		m.lock = nil
	}
}

// CorePID is the core manager's process id, for reading its CPU time and
// memory from /proc.
func (m *Management) CorePID() int {
	return m.core.PID()
}

// PIDs are the process ids of etcd, kube-apiserver and every process
// Start ran, by name, for reading their CPU time from /proc.
func (m *Management) PIDs() (map[string]int, error) {
	pids := map[string]int{}
	for _, name := range []string{"etcd", "kube-apiserver"} {
		data, err := os.ReadFile(filepath.Join(m.Cluster.Dir(), "run", name+".pid"))
		if err != nil {
			return nil, err
		}
		if pids[name], err = strconv.Atoi(strings.TrimSpace(string(data))); err != nil {
			return nil, fmt.Errorf("%s's pid file: %w", name, err)
		}
	}
	if m.core != nil {
		pids[CoreManagerName] = m.core.PID()
	}
	for i, standby := range m.standbys {
		pids[fmt.Sprintf("%s-standby-%d", CoreManagerName, i+1)] = standby.PID()
	}
	for _, p := range m.providers {
		pids[p.name] = p.PID()
	}
	return pids, nil
}

// MetricsURL is where the process of that name serves its metrics, over
// plain HTTP; empty for a name that does not run.
func (m *Management) MetricsURL(name string) string {
	if name == CoreManagerName && m.core != nil {
		return m.core.MetricsURL()
	}
	for _, p := range m.providers {
		if p.name == name {
			return p.MetricsURL()
		}
	}
	return ""
}

// Scrape reads the metrics of the process of that name.
func (m *Management) Scrape(ctx context.Context, name string) (managerprocess.Metrics, error) {
	if name == CoreManagerName {
		return m.core.Scrape(ctx)
	}
	for _, p := range m.providers {
		if p.name == name {
			return p.Scrape(ctx)
		}
	}
	return nil, fmt.Errorf("no process %s", name)
}
