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

package cmdline

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
	cliflag "k8s.io/component-base/cli/flag"
	logsv1 "k8s.io/component-base/logs/api/v1"
	// Registers the json logging format and its flags, as Cluster API's
	// manager does.
	_ "k8s.io/component-base/logs/json/register"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/feature"
	capiflags "sigs.k8s.io/cluster-api/util/flags"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// Options are what the command line says.
type Options struct {
	Kubeconfig string

	LeaderElect                                                                bool
	LeaderElectLeaseDuration, LeaderElectRenewDeadline, LeaderElectRetryPeriod time.Duration

	Namespace, WatchFilter, ProfilerAddress string
	ContentionProfiling                     bool

	RemoteConnectionGracePeriod, RemoteConditionsGracePeriod time.Duration

	// Concurrency is the number of workers per controller, by flag name
	// without its -concurrency suffix.
	Concurrency map[string]*int

	MachineSetPreflightChecks, SkipCRDMigrationPhases []string
	SyncPeriod                                        time.Duration

	KubeAPIQPS, ClusterCacheClientQPS     float32
	KubeAPIBurst, ClusterCacheClientBurst int

	WebhookPort                                     int
	WebhookCertDir, WebhookCertName, WebhookKeyName string

	RuntimeExtensionClientCertFile, RuntimeExtensionClientKeyFile string

	HealthAddr string

	AdditionalSyncMachineLabels, AdditionalSyncMachineAnnotations []string

	// Manager holds the TLS and diagnostics flags Cluster API's helper
	// defines.
	Manager capiflags.ManagerOptions
	// Logs holds the logging flags of component-base.
	Logs *logsv1.LoggingConfiguration

	set *pflag.FlagSet
}

// EachFlag calls fn with every flag's name and value after Parse, as Cluster
// API's manager logs them at start.
func (o *Options) EachFlag(fn func(name, value string)) {
	if o.set == nil {
		return
	}
	o.set.VisitAll(func(f *pflag.Flag) { fn(f.Name, f.Value.String()) })
}

// concurrencyDefaults are Cluster API's workers per controller.
var concurrencyDefaults = []struct {
	name  string
	value int
	what  string
}{
	{"clustertopology", 50, "clusters with a managed topology"},
	{"clusterclass", userfacing.DefaultClusterClassConcurrency, "ClusterClasses"},
	{"cluster", 50, "clusters"},
	{"clustercache", 100, "clusters in the cluster cache"},
	{"extensionconfig", userfacing.DefaultExtensionConfigConcurrency, "ExtensionConfigs"},
	{"machine", 100, "Machines"},
	{"machineset", 50, "MachineSets"},
	{"machinedeployment", 50, "MachineDeployments"},
	{"machinepool", 50, "MachinePools"},
	{"clusterresourceset", 10, "ClusterResourceSets and their bindings"},
	{"machinehealthcheck", 50, "MachineHealthChecks"},
}

// NewFlagSet defines every flag on a new flag set that fills o.
func NewFlagSet(name string, o *Options) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	o.Logs = logsv1.NewLoggingConfiguration()
	logsv1.AddFlags(o.Logs, fs)
	// Cluster API's manager logs at level 2 unless -v says otherwise; its
	// --help still shows pflag's default 0, and so does ours.
	if err := fs.Set("v", "2"); err != nil {
		panic(err) // "2" is always a valid level
	}

	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "Path to a kubeconfig; only needed out of cluster.")
	fs.BoolVar(&o.LeaderElect, "leader-elect", false, "Elect a leader so that only one replica reconciles.")
	fs.DurationVar(&o.LeaderElectLeaseDuration, "leader-elect-lease-duration", 15*time.Second, "How long a standby waits before it may take over the Lease.")
	fs.DurationVar(&o.LeaderElectRenewDeadline, "leader-elect-renew-deadline", 10*time.Second, "How long the leader tries to renew the Lease before giving it up.")
	fs.DurationVar(&o.LeaderElectRetryPeriod, "leader-elect-retry-period", 2*time.Second, "How often leader election is retried.")
	fs.StringVar(&o.Namespace, "namespace", "", "Watch only this namespace; empty watches all.")
	fs.StringVar(&o.WatchFilter, "watch-filter", "", "Reconcile only objects labelled cluster.x-k8s.io/watch-filter with this value.")
	fs.StringVar(&o.ProfilerAddress, "profiler-address", "", "Serve pprof on this address (for example localhost:6060); empty disables it.")
	fs.BoolVar(&o.ContentionProfiling, "contention-profiling", false, "Record block profiles.")
	fs.DurationVar(&o.RemoteConnectionGracePeriod, "remote-connection-grace-period", 50*time.Second,
		"How long a workload cluster may stay unreachable before it is reported so.")
	fs.DurationVar(&o.RemoteConditionsGracePeriod, "remote-conditions-grace-period", 5*time.Minute,
		"How long conditions read from a workload cluster stay trusted while it is unreachable; above --remote-connection-grace-period and at least 2m.")
	o.Concurrency = map[string]*int{}
	for _, c := range concurrencyDefaults {
		o.Concurrency[c.name] = fs.Int(c.name+"-concurrency", c.value, "Number of "+c.what+" reconciled at once.")
	}
	fs.StringSliceVar(&o.MachineSetPreflightChecks, "machineset-preflight-checks", []string{string(clusterv1.MachineSetPreflightCheckAll)},
		"MachineSet preflight checks to run: All, or a list of KubeadmVersionSkew, KubernetesVersionSkew, ControlPlaneIsStable, ControlPlaneVersionSkew.")
	fs.StringSliceVar(&o.SkipCRDMigrationPhases, "skip-crd-migration-phases", []string{}, "CRD migration phases to skip: StorageVersionMigration, CleanupManagedFields.")
	fs.DurationVar(&o.SyncPeriod, "sync-period", 10*time.Minute, "How often every watched object is reconciled again.")
	fs.Float32Var(&o.KubeAPIQPS, "kube-api-qps", userfacing.DefaultKubeAPIQPS, "Requests per second to the management cluster's kube-apiserver.")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", userfacing.DefaultKubeAPIBurst, "Burst of requests to the management cluster's kube-apiserver.")
	fs.Float32Var(&o.ClusterCacheClientQPS, "clustercache-client-qps", 20, "Requests per second to each workload cluster's kube-apiserver.")
	fs.IntVar(&o.ClusterCacheClientBurst, "clustercache-client-burst", 30, "Burst of requests to each workload cluster's kube-apiserver.")
	fs.IntVar(&o.WebhookPort, "webhook-port", 9443, "Port the webhook server listens on.")
	fs.StringVar(&o.WebhookCertDir, "webhook-cert-dir", "/tmp/k8s-webhook-server/serving-certs/", "Directory of the webhook server's certificate and key.")
	fs.StringVar(&o.WebhookCertName, "webhook-cert-name", "tls.crt", "File name of the webhook server's certificate.")
	fs.StringVar(&o.WebhookKeyName, "webhook-key-name", "tls.key", "File name of the webhook server's key.")
	fs.StringVar(&o.RuntimeExtensionClientCertFile, "runtime-extension-client-cert-file", "", "Client certificate presented to Runtime Extensions.")
	fs.StringVar(&o.RuntimeExtensionClientKeyFile, "runtime-extension-client-key-file", "", "Key of --runtime-extension-client-cert-file.")
	fs.StringVar(&o.HealthAddr, "health-addr", ":9440", "Address of /healthz and /readyz.")
	fs.StringSliceVar(&o.AdditionalSyncMachineLabels, "additional-sync-machine-labels", []string{}, "Regular expressions of further Machine labels synced to Nodes.")
	fs.StringSliceVar(&o.AdditionalSyncMachineAnnotations, "additional-sync-machine-annotations", []string{}, "Regular expressions of further Machine annotations synced to Nodes.")

	capiflags.AddManagerOptions(fs, &o.Manager)
	feature.MutableGates.AddFlag(fs)
	// Cluster API's manager accepts flag names with _ or . for -.
	fs.SetNormalizeFunc(cliflag.WordSepNormalizeFunc)
	return fs
}

// Parse reads args. A flag Cluster API's manager does not take is an
// error naming it.
func Parse(name string, args []string) (*Options, error) {
	o := &Options{}
	fs := NewFlagSet(name, o)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	o.set = fs
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.RemoteConditionsGracePeriod <= o.RemoteConnectionGracePeriod || o.RemoteConditionsGracePeriod < 2*time.Minute {
		return nil, fmt.Errorf("--remote-conditions-grace-period must be greater than --remote-connection-grace-period and at least 2m, got %s and %s",
			o.RemoteConditionsGracePeriod, o.RemoteConnectionGracePeriod)
	}
	return o, nil
}
