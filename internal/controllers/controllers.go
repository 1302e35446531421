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

package controllers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/feature"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/clusterclass"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/extensionconfig"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/topologyresponses"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/variablescache"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/variableschema"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
)

// Options are the settings of the ExtensionConfig and ClusterClass
// controllers, the runtime client and the variables cache they share.
type Options struct {
	// RuntimeClient configures calls to Runtime Extensions.
	RuntimeClient rtclient.Options
	// RediscoveryInterval is how often a healthy ExtensionConfig is
	// discovered again.
	RediscoveryInterval time.Duration
	// VariablesCacheMaxAge expires cached DiscoverVariables answers on top
	// of invalidation by registration changes, as Cluster API's cache
	// expires its own; zero means userfacing.DefaultVariablesCacheMaxAge,
	// Cluster API's 10 minutes. Their number and memory are bounded by
	// userfacing.DefaultVariablesCacheMaxEntries and MaxBytes.
	VariablesCacheMaxAge time.Duration
	// ClusterClassConcurrency and ExtensionConfigConcurrency are how many
	// of each reconcile at once; zero means Cluster API's defaults
	// (userfacing.DefaultClusterClassConcurrency and
	// DefaultExtensionConfigConcurrency), as its flags give them.
	ClusterClassConcurrency, ExtensionConfigConcurrency int
	// SecretMetadata is the cache the CA Secret watch reads, one that
	// sees every Secret; required with the RuntimeSDK gate on (see
	// extensionconfig.Reconciler).
	SecretMetadata ctrlcache.Cache
	// WatchFilterValue, when set, makes both controllers reconcile only
	// objects labelled cluster.x-k8s.io/watch-filter with this value, as
	// Cluster API's --watch-filter does.
	WatchFilterValue string
}

// withDefaults gives each unset setting the value Cluster API's manager
// runs with, so that no zero value means anything of its own.
func (o Options) withDefaults() Options {
	if o.VariablesCacheMaxAge <= 0 {
		o.VariablesCacheMaxAge = userfacing.DefaultVariablesCacheMaxAge
	}
	if o.ClusterClassConcurrency <= 0 {
		o.ClusterClassConcurrency = userfacing.DefaultClusterClassConcurrency
	}
	if o.ExtensionConfigConcurrency <= 0 {
		o.ExtensionConfigConcurrency = userfacing.DefaultExtensionConfigConcurrency
	}
	return o
}

// RuntimeSDK is what AddToManager wires around the two controllers: the
// handler registry, the runtime client and the response cache they share.
type RuntimeSDK struct {
	Registry *registry.Registry
	Client   *rtclient.Client
	// Responses caches GeneratePatches and ValidateTopology answers for the
	// configs whose users opt in; it forgets a config's answers when its
	// registration or settings change.
	Responses *topologyresponses.Cache
}

// AddToManager wires the ExtensionConfig and ClusterClass controllers
// into mgr around one handler registry, one runtime client and one call
// cache, with a readiness check that passes once the registry is warm.
// Each controller runs where Cluster API's feature gates would run its
// own: the ExtensionConfig controller under RuntimeSDK, the ClusterClass
// controller and its index under ClusterTopology.
func AddToManager(ctx context.Context, mgr ctrl.Manager, opts Options) (*RuntimeSDK, error) {
	opts = opts.withDefaults()
	reg := registry.New()
	// Ready only once warm-up has loaded the recorded handlers: before that
	// a ClusterClass reconcile would mistake them for missing.
	if err := mgr.AddReadyzCheck("registry", func(*http.Request) error {
		if !reg.Gate().IsOpen(registry.WarmedUp) {
			return errors.New("handler registry is warming up")
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("add readiness check: %w", err)
	}

	runtimeClient, err := rtclient.New(opts.RuntimeClient)
	if err != nil {
		return nil, err
	}
	// Keeps the client certificate current as its files are renewed.
	if err := mgr.Add(runtimeClient); err != nil {
		return nil, fmt.Errorf("add runtime client: %w", err)
	}
	// Off for every config until its user opts in, so that calls go out
	// as in Cluster API unless asked otherwise.
	responses := topologyresponses.New(topologyresponses.Options{Observer: metrics.ResponseCache{}})
	if feature.Gates.Enabled(feature.RuntimeSDK) {
		if err := addExtensionConfigs(ctx, mgr, opts, reg, runtimeClient, responses); err != nil {
			return nil, err
		}
		// A new registration or new settings void a config's answers.
		reg.Subscribe(ctx, responses.ForgetChanged)
	} else {
		// Nothing registers handlers: the empty registry is complete.
		reg.Gate().Open(registry.WarmedUp)
		reg.Gate().Open(registry.Rebuilt)
	}
	sdk := &RuntimeSDK{Registry: reg, Client: runtimeClient, Responses: responses}
	if !feature.Gates.Enabled(feature.ClusterTopology) {
		return sdk, nil
	}
	if err := addClusterClasses(ctx, mgr, opts, reg, runtimeClient); err != nil {
		return nil, err
	}
	return sdk, nil
}

func addExtensionConfigs(ctx context.Context, mgr ctrl.Manager, opts Options, reg *registry.Registry,
	runtimeClient *rtclient.Client, responses *topologyresponses.Cache,
) error {
	extensionConfigs := &extensionconfig.Reconciler{
		Client:              mgr.GetClient(),
		APIReader:           mgr.GetAPIReader(),
		Discoverer:          runtimeClient,
		Registry:            reg,
		RediscoveryInterval: opts.RediscoveryInterval,
		SecretMetadata:      opts.SecretMetadata,
		WatchFilterValue:    opts.WatchFilterValue,
		ResponseCache:       responses,
	}
	return extensionConfigs.SetupWithManager(ctx, mgr, controller.Options{MaxConcurrentReconciles: opts.ExtensionConfigConcurrency})
}

func addClusterClasses(ctx context.Context, mgr ctrl.Manager, opts Options, reg *registry.Registry,
	runtimeClient *rtclient.Client,
) error {
	if err := extensionindex.IndexClusterClasses(ctx, mgr.GetFieldIndexer()); err != nil {
		return err
	}
	log := ctrl.LoggerFrom(ctx).WithName("variables-cache")
	variablesCache := variablescache.New[[]clusterv1.ClusterClassVariable](variablescache.Options{
		// MaxBytes stays userfacing.DefaultVariablesCacheMaxBytes, which
		// says why that size; no flag sets it.
		MaxAge: opts.VariablesCacheMaxAge,
		Equal:  func(a, b any) bool { return equality.Semantic.DeepEqual(a, b) },
		// Rare, and each costs a call per reconcile that needs the answer:
		// worth a line every time.
		Oversize: func(handler string, weight int64) {
			log.Info("DiscoverVariables answer not cached: it holds more memory than the whole cache may, so every reconcile that needs it calls the extension again; make the extension answer with fewer or smaller variables",
				"handler", handler, "bytes", weight, "maxBytes", userfacing.DefaultVariablesCacheMaxBytes)
		},
	})
	clusterClasses := &clusterclass.Reconciler{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Registry:  reg,
		Caller:    runtimeClient,
		Cache:     variablesCache,
		Schemas:   &variableschema.Verdicts{},

		WatchFilterValue: opts.WatchFilterValue,
		RefreshInterval:  clusterclass.RefreshIntervalFor(opts.VariablesCacheMaxAge),
	}
	return clusterClasses.SetupWithManager(mgr, controller.Options{MaxConcurrentReconciles: opts.ClusterClassConcurrency})
}
