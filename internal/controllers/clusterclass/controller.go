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

package clusterclass

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/backoff"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/objstatus"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/watchfilter"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/variablescache"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/variableschema"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
)

// HookCaller calls one hook handler; the runtime client
// (internal/runtime/client.Client) implements it.
type HookCaller interface {
	Call(ctx context.Context, config runtimev1.ClientConfig, hook runtimecatalog.GroupVersionHook, handlerName string,
		timeout time.Duration, settings map[string]string, request runtime.Object, response runtimehooksv1.ResponseObject) error
}

// VariablesCache is the call cache for DiscoverVariables answers.
type VariablesCache = variablescache.Cache[[]clusterv1.ClusterClassVariable]

// Reconciler reconciles ClusterClasses.
type Reconciler struct {
	// Client reads ClusterClasses and Namespace metadata from the cache.
	Client client.Client
	// APIReader reads past the cache when it lags behind our own writes.
	APIReader client.Reader
	// Registry holds the discovered handlers.
	Registry *registry.Registry
	// Caller makes DiscoverVariables calls.
	Caller HookCaller
	// Cache collapses identical calls.
	Cache *VariablesCache
	// Schemas validates variable schemas, once per distinct schema in use.
	Schemas *variableschema.Verdicts
	// WatchFilterValue, when set, leaves every ClusterClass not labelled
	// cluster.x-k8s.io/watch-filter with this value to another manager.
	WatchFilterValue string
	// RefreshInterval, when positive, is how often DiscoverVariables
	// answers in use are checked for reaching the cache's max age (and
	// asked again); zero refreshes nothing.
	RefreshInterval time.Duration

	writes     objstatus.Writes
	admissions admissionLog
}

// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusterclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusterclasses/status,verbs=patch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

// SetupWithManager registers the controller. The ClusterClass indexes of
// extensionindex must already be registered with the manager. The
// controller retries with package backoff's rate limiter, whatever
// options.RateLimiter holds.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, options controller.Options) error {
	metrics.Register()
	mapper := extensionindex.Mapper{Reader: mgr.GetCache(), Applied: r.admissions.lookup}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &clusterv1.ClusterClass{}, byTemplateCRD, templateCRDKeys); err != nil {
		return fmt.Errorf("index ClusterClasses by template CRD: %w", err)
	}
	registrations := newRegistrationEvents(r.Registry)
	if err := mgr.Add(registrations); err != nil {
		return fmt.Errorf("add registration events: %w", err)
	}
	// Nothing but backoff brings back a ClusterClass whose DiscoverVariables
	// failed (resyncs enqueue nothing): capped, it is retried within a
	// minute of the extension's return.
	options.RateLimiter = backoff.RateLimiter()
	err := ctrl.NewControllerManagedBy(mgr).
		Named("clusterclass").
		WithOptions(options).
		WatchesRawSource(clusterClassSource(mgr.GetCache(), &indexSizes{})).
		// A registration change, mapped through the index on the source's
		// own goroutine to the ClusterClasses that can observe it.
		WatchesRawSource(source.Channel(registrations.events(),
			handler.TypedEnqueueRequestsFromMapFunc(r.clusterClassesFor(mapper)))).
		WatchesRawSource(r.namespaceSource(mgr.GetCache(), mapper)).
		WatchesRawSource(r.templateCRDSource(mgr.GetCache())).
		WatchesRawSource(r.refreshSource()).
		Complete(r)
	if err != nil {
		return fmt.Errorf("build clusterclass controller: %w", err)
	}
	if r.RefreshInterval > 0 {
		return mgr.Add(&refresher{cache: r.Cache, interval: r.RefreshInterval})
	}
	return nil
}

// Reconcile publishes a ClusterClass's variables.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, reterr error) {
	cc := &clusterv1.ClusterClass{}
	// This reconcile uses again whatever answers it still needs.
	r.Cache.Release(req.NamespacedName)
	if err := r.Client.Get(ctx, req.NamespacedName, cc); err != nil {
		if apierrors.IsNotFound(err) {
			r.writes.Forget(req.NamespacedName)
			r.admissions.forget(req.NamespacedName)
			r.Schemas.Release(req.NamespacedName)
			metrics.VariableSchemasCached.Set(float64(r.Schemas.Len()))
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !watchfilter.Matches(cc, r.WatchFilterValue) {
		return ctrl.Result{}, nil
	}
	if err := r.writes.Fresh(ctx, r.APIReader, cc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// Before the leader's rebuild, the registry may be an old standby's: an
	// unregistered handler may only be not loaded yet, and a registered one
	// deleted or changed since.
	select {
	case <-r.Registry.Gate().Done(registry.Rebuilt):
	case <-ctx.Done():
		return ctrl.Result{}, ctx.Err()
	}

	before := cc.DeepCopy()
	defer func() {
		if err := objstatus.Patch(ctx, &r.writes, r.Client, before, cc, statusOf); err != nil {
			reterr = errors.Join(reterr, err)
		}
	}()

	if objstatus.SetPaused(cc, "ClusterClass") {
		return ctrl.Result{}, nil
	}
	templatesErr := r.reconcileTemplates(ctx, cc)
	res, err := r.resolve(ctx, cc)
	if err != nil {
		return ctrl.Result{}, errors.Join(templatesErr, err)
	}
	r.admissions.set(client.ObjectKeyFromObject(cc), res.admitted)
	setExtensionsResolved(cc, res)
	ready, retry := r.reconcileVariables(ctx, cc, res)
	// As Cluster API: the generation counts as observed only when every
	// part of the reconcile succeeded.
	if ready && templatesErr == nil {
		cc.Status.ObservedGeneration = cc.Generation
	}
	return ctrl.Result{}, errors.Join(templatesErr, retry)
}

// statusOf is the part of a ClusterClass that objstatus.Patch compares.
func statusOf(obj *clusterv1.ClusterClass) any { return obj.Status }
