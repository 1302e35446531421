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

package dropin

import (
	"context"
	"fmt"
	"regexp"
	goruntime "runtime"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/utils/ptr"
	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/cluster-api/controllers/crdmigrator"
	"sigs.k8s.io/cluster-api/controllers/remote"
	capisetup "sigs.k8s.io/cluster-api/core/setup"
	runtimeclient "sigs.k8s.io/cluster-api/exp/runtime/client"
	"sigs.k8s.io/cluster-api/feature"
	"sigs.k8s.io/cluster-api/util/apiwarnings"
	"sigs.k8s.io/cluster-api/util/flags"
	"sigs.k8s.io/cluster-api/util/index"
	"sigs.k8s.io/cluster-api/version"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/cmd/core-manager/cmdline"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/cmd/core-manager/extensioncalls"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/capiversion"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers"
	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// Names the manager is known by in the cluster, as Cluster API's: its user
// agent, and the Lease a replica holds to lead, so that during a switch our
// manager and Cluster API's never lead at the same time.
const (
	ControllerName   = "cluster-api-controller-manager"
	LeaderElectionID = "controller-leader-election-capi"
)

// Owners of a part.
const (
	ClusterAPI = "Cluster API " + capiversion.Version
	Ours       = "ours"
)

// Part is one thing the manager runs.
type Part struct {
	// Kind is reconciler, webhook, index, runnable or setting.
	Kind  string
	Name  string
	Owner string
}

// Manager is the assembled manager, not started, and what it runs.
type Manager struct {
	ctrl.Manager
	Parts []Part
}

// New assembles the manager as Cluster API's core/main.go does, on the
// options of its command line.
func New(ctx context.Context, restConfig *rest.Config, o *cmdline.Options) (*Manager, error) {
	machineOpts, err := machineOptionsFrom(o)
	if err != nil {
		return nil, err
	}
	restConfig = rest.CopyConfig(restConfig)
	restConfig.QPS, restConfig.Burst = o.KubeAPIQPS, o.KubeAPIBurst
	restConfig.UserAgent = remote.DefaultClusterAPIUserAgent(ControllerName)
	restConfig.WarningHandler = apiwarnings.DefaultHandler(ctrl.Log.WithName("API Server Warning"))

	minVersion := version.MinimumKubernetesVersion
	if feature.Gates.Enabled(feature.ClusterTopology) {
		minVersion = version.MinimumKubernetesVersionClusterTopology
	}
	if err := version.CheckKubernetesVersion(restConfig, minVersion); err != nil {
		return nil, err
	}
	tlsOptions, metricsOptions, err := flags.GetManagerOptions(o.Manager)
	if err != nil {
		return nil, fmt.Errorf("invalid flags: %w", err)
	}
	if o.ContentionProfiling {
		goruntime.SetBlockProfileRate(1)
	}

	scheme := NewScheme()
	mgr, err := ctrl.NewManager(restConfig, ctrl.Options{
		Controller: config.Controller{
			UsePriorityQueue: ptr.To(feature.Gates.Enabled(feature.PriorityQueue)),
			// As Cluster API's: large management clusters take longer than
			// the default 3 minutes to fill the caches.
			CacheSyncTimeout: 5 * time.Minute,
		},
		Scheme:                     scheme,
		LeaderElection:             o.LeaderElect,
		LeaderElectionID:           LeaderElectionID,
		LeaseDuration:              &o.LeaderElectLeaseDuration,
		RenewDeadline:              &o.LeaderElectRenewDeadline,
		RetryPeriod:                &o.LeaderElectRetryPeriod,
		LeaderElectionResourceLock: resourcelock.LeasesResourceLock,
		HealthProbeBindAddress:     o.HealthAddr,
		PprofBindAddress:           o.ProfilerAddress,
		Metrics:                    *metricsOptions,
		Cache:                      capisetup.ManagerCacheOptions(scheme, ControllerName, o.Namespace, o.SyncPeriod),
		Client:                     capisetup.ManagerClientOptions(),
		WebhookServer: webhook.NewServer(webhook.Options{
			Port:     o.WebhookPort,
			CertDir:  o.WebhookCertDir,
			CertName: o.WebhookCertName,
			KeyName:  o.WebhookKeyName,
			TLSOpts:  tlsOptions,
		}),
	})
	if err != nil {
		return nil, fmt.Errorf("create manager: %w", err)
	}
	a := &assembly{mgr: mgr, o: o, machine: machineOpts}
	for _, step := range []func(context.Context) error{a.checks, a.indexes, a.reconcilers, a.webhooks} {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	return &Manager{Manager: mgr, Parts: a.parts}, nil
}

// machineOptions are the Machine and MachineSet settings whose flags need
// more than parsing.
type machineOptions struct {
	syncLabels, syncAnnotations []*regexp.Regexp
	preflightChecks             sets.Set[clusterv1.MachineSetPreflightCheck]
}

func machineOptionsFrom(o *cmdline.Options) (machineOptions, error) {
	var m machineOptions
	var err error
	if m.syncLabels, err = compileAll("--additional-sync-machine-labels", o.AdditionalSyncMachineLabels); err != nil {
		return m, err
	}
	if m.syncAnnotations, err = compileAll("--additional-sync-machine-annotations", o.AdditionalSyncMachineAnnotations); err != nil {
		return m, err
	}
	supported := sets.New(
		clusterv1.MachineSetPreflightCheckAll,
		clusterv1.MachineSetPreflightCheckKubeadmVersionSkew,
		clusterv1.MachineSetPreflightCheckKubernetesVersionSkew,
		clusterv1.MachineSetPreflightCheckControlPlaneIsStable,
		clusterv1.MachineSetPreflightCheckControlPlaneVersionSkew,
	)
	m.preflightChecks = sets.New[clusterv1.MachineSetPreflightCheck]()
	for _, c := range o.MachineSetPreflightChecks {
		if c == "" {
			continue
		}
		check := clusterv1.MachineSetPreflightCheck(c)
		if !supported.Has(check) {
			return m, fmt.Errorf("--machineset-preflight-checks: unknown check %q; valid are %v", c, sets.List(supported))
		}
		m.preflightChecks.Insert(check)
	}
	return m, nil
}

func compileAll(flag string, patterns []string) ([]*regexp.Regexp, error) {
	var compiled []*regexp.Regexp
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		compiled = append(compiled, re)
	}
	return compiled, nil
}

// assembly adds the parts to the manager, recording each.
type assembly struct {
	mgr     ctrl.Manager
	o       *cmdline.Options
	machine machineOptions
	parts   []Part

	clusterCache clustercache.ClusterCache
	// runtimeClient is nil when the RuntimeSDK gate is off, as Cluster
	// API's is: its reconcilers then make no Runtime SDK calls.
	runtimeClient runtimeclient.Client
	// secretMetadata sees every Secret's metadata, which the manager's
	// cache, restricted to Secrets of a cluster, does not.
	secretMetadata ctrlcache.Cache
}

func (a *assembly) add(kind, name, owner string) {
	a.parts = append(a.parts, Part{Kind: kind, Name: name, Owner: owner})
}

func (a *assembly) concurrency(name string) controller.Options {
	return controller.Options{MaxConcurrentReconciles: *a.o.Concurrency[name]}
}

func (a *assembly) checks(context.Context) error {
	started := a.mgr.GetWebhookServer().StartedChecker()
	if err := a.mgr.AddReadyzCheck("webhook", started); err != nil {
		return fmt.Errorf("add readiness check: %w", err)
	}
	if err := a.mgr.AddHealthzCheck("webhook", started); err != nil {
		return fmt.Errorf("add health check: %w", err)
	}
	return nil
}

func (a *assembly) indexes(ctx context.Context) error {
	if err := index.AddDefaultIndexes(ctx, a.mgr); err != nil {
		return fmt.Errorf("add indexes: %w", err)
	}
	a.add("index", "Cluster API's default indexes", ClusterAPI)
	return nil
}

func (a *assembly) reconcilers(ctx context.Context) error {
	for _, step := range []func(context.Context) error{
		a.clusterCacheAndMigrator, a.secretCache, a.runtimeSDK, a.topology, a.machines, a.addons,
	} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (a *assembly) clusterCacheAndMigrator(ctx context.Context) error {
	secretCachingClient, err := capisetup.CreateSecretCachingClient(a.mgr)
	if err != nil {
		return fmt.Errorf("create secret caching client: %w", err)
	}
	a.clusterCache, err = clustercache.SetupWithManager(ctx, a.mgr, clustercache.Options{
		SecretClient:     secretCachingClient,
		Cache:            capisetup.ClusterCacheCacheOptions(),
		Client:           capisetup.ClusterCacheClientOptions(ControllerName, a.o.ClusterCacheClientQPS, a.o.ClusterCacheClientBurst),
		WatchFilterValue: a.o.WatchFilter,
	}, a.concurrency("clustercache"))
	if err != nil {
		return fmt.Errorf("create ClusterCache: %w", err)
	}
	a.add("reconciler", "ClusterCache", ClusterAPI)

	migrated := map[client.Object]crdmigrator.ByObjectConfig{
		&addonsv1.ClusterResourceSetBinding{}: {UseCache: false},
		&addonsv1.ClusterResourceSet{}:        {UseCache: false, UseStatusForStorageVersionMigration: true},
		&clusterv1.Cluster{}:                  {UseCache: false, UseStatusForStorageVersionMigration: true},
		&clusterv1.MachineDeployment{}:        {UseCache: false, UseStatusForStorageVersionMigration: true},
		&clusterv1.MachineDrainRule{}:         {UseCache: false},
		&clusterv1.MachineHealthCheck{}:       {UseCache: false, UseStatusForStorageVersionMigration: true},
		&clusterv1.Machine{}:                  {UseCache: false, UseStatusForStorageVersionMigration: true},
		&clusterv1.MachineSet{}:               {UseCache: false, UseStatusForStorageVersionMigration: true},
		&ipamv1.IPAddress{}:                   {UseCache: false},
		&ipamv1.IPAddressClaim{}:              {UseCache: false, UseStatusForStorageVersionMigration: true},
	}
	if feature.Gates.Enabled(feature.ClusterTopology) {
		migrated[&clusterv1.ClusterClass{}] = crdmigrator.ByObjectConfig{UseCache: false, UseStatusForStorageVersionMigration: true}
	}
	if feature.Gates.Enabled(feature.RuntimeSDK) {
		migrated[&runtimev1.ExtensionConfig{}] = crdmigrator.ByObjectConfig{UseCache: false, UseStatusForStorageVersionMigration: true}
	}
	if feature.Gates.Enabled(feature.MachinePool) {
		migrated[&clusterv1.MachinePool{}] = crdmigrator.ByObjectConfig{UseCache: false, UseStatusForStorageVersionMigration: true}
	}
	skip := make([]crdmigrator.Phase, 0, len(a.o.SkipCRDMigrationPhases))
	for _, p := range a.o.SkipCRDMigrationPhases {
		skip = append(skip, crdmigrator.Phase(p))
	}
	// One worker, as Cluster API's: migration patches every object of a
	// kind, and more would crowd the apiserver.
	if err := (&crdmigrator.CRDMigrator{
		Client: a.mgr.GetClient(), APIReader: a.mgr.GetAPIReader(),
		SkipCRDMigrationPhases: skip, Config: migrated,
	}).SetupWithManager(ctx, a.mgr, controller.Options{MaxConcurrentReconciles: 1}); err != nil {
		return fmt.Errorf("create controller CRDMigrator: %w", err)
	}
	a.add("reconciler", "CRDMigrator", ClusterAPI)
	return nil
}

// secretCache is the metadata-only Secret cache Cluster API keeps beside
// the manager's for watches of Secrets that belong to no cluster: the
// ClusterResourceSet controller's and, here, our CA injection's.
func (a *assembly) secretCache(context.Context) error {
	var namespaces map[string]ctrlcache.Config
	if a.o.Namespace != "" {
		namespaces = map[string]ctrlcache.Config{a.o.Namespace: {}}
	}
	secretGVK := corev1.SchemeGroupVersion.WithKind("Secret")
	c, err := ctrlcache.New(a.mgr.GetConfig(), ctrlcache.Options{
		Scheme:            a.mgr.GetScheme(),
		Mapper:            a.mgr.GetRESTMapper(),
		HTTPClient:        a.mgr.GetHTTPClient(),
		SyncPeriod:        &a.o.SyncPeriod,
		DefaultNamespaces: namespaces,
		DefaultTransform: func(in any) (any, error) {
			// Only Secret metadata may enter this cache. Anything else is
			// a wiring mistake in this binary, never bad input: it stops
			// the process at once, as in Cluster API's manager, instead of
			// leaving the cache unsynced until its timeout.
			obj, ok := in.(*metav1.PartialObjectMetadata)
			if !ok || obj.GroupVersionKind() != secretGVK {
				panic(fmt.Sprintf("the Secret metadata cache got a %T, want Secret metadata", in))
			}
			obj.SetManagedFields(nil)
			return obj, nil
		},
	})
	if err != nil {
		return fmt.Errorf("create the Secret metadata cache: %w", err)
	}
	if err := a.mgr.Add(c); err != nil {
		return fmt.Errorf("add the Secret metadata cache: %w", err)
	}
	a.secretMetadata = c
	a.add("runnable", "Secret metadata cache", ClusterAPI)
	return nil
}

// runtimeSDK adds our ExtensionConfig and ClusterClass controllers, each
// where Cluster API's feature gates would run its own, and our runtime
// client for Cluster API's reconcilers.
func (a *assembly) runtimeSDK(ctx context.Context) error {
	runtimeSDK := feature.Gates.Enabled(feature.RuntimeSDK)
	topology := feature.Gates.Enabled(feature.ClusterTopology)
	if !runtimeSDK && !topology {
		return nil
	}
	// The response cache's bounds are fixed: the drop-in takes no flag
	// Cluster API's does not.
	sdk, err := controllers.AddToManager(ctx, a.mgr, controllers.Options{
		RuntimeClient: rtclient.Options{
			ClientCertFile: a.o.RuntimeExtensionClientCertFile,
			ClientKeyFile:  a.o.RuntimeExtensionClientKeyFile,
			Observe:        extensioncalls.Observe,
		},
		// Cluster API discovers every ExtensionConfig again at each resync,
		// and on every change a user or another writer makes.
		RediscoveryInterval:        a.o.SyncPeriod,
		VariablesCacheMaxAge:       userfacing.DefaultVariablesCacheMaxAge,
		ClusterClassConcurrency:    *a.o.Concurrency["clusterclass"],
		ExtensionConfigConcurrency: *a.o.Concurrency["extensionconfig"],
		SecretMetadata:             a.secretMetadata,
		WatchFilterValue:           a.o.WatchFilter,
	})
	if err != nil {
		return err
	}
	if runtimeSDK {
		a.runtimeClient = extensioncalls.New(sdk.Client, sdk.Registry, a.mgr.GetClient(), sdk.Responses)
		a.add("runnable", "runtime client and handler registry, with warm-up", Ours)
		a.add("setting", "response cache of GeneratePatches and ValidateTopology, off unless an ExtensionConfig opts in", Ours)
		a.add("reconciler", "ExtensionConfig", Ours)
	}
	if topology {
		a.add("index", "ExtensionConfig to ClusterClass", Ours)
		a.add("reconciler", "ClusterClass", Ours)
	}
	return nil
}
