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

package extensionconfig

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/backoff"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/objstatus"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/watchfilter"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// caSecretIndex indexes ExtensionConfigs by the "<namespace>/<name>" of the
// Secret their CA annotation names, so a Secret event finds its configs
// without listing them all.
const caSecretIndex = "runtime.cluster.x-k8s.io/ca-secret"

// Discoverer runs the Discovery hook of an ExtensionConfig's extension.
type Discoverer interface {
	Discover(ctx context.Context, ext *runtimev1.ExtensionConfig) ([]runtimev1.ExtensionHandler, error)
}

// Reconciler reconciles ExtensionConfigs.
type Reconciler struct {
	// Client reads ExtensionConfigs from the cache and writes them.
	Client client.Client
	// APIReader reads CA Secrets directly (only Secret metadata is cached,
	// so that no Secret's data is held in memory), and ExtensionConfigs
	// past the cache when it lags behind our own writes.
	APIReader client.Reader
	// Discoverer calls the extensions.
	Discoverer Discoverer
	// Registry receives the discovered handlers.
	Registry *registry.Registry
	// RediscoveryInterval is the pause between two discoveries of a
	// healthy config; zero means userfacing.DefaultRediscoveryInterval.
	RediscoveryInterval time.Duration
	// WatchFilterValue, when set, leaves every ExtensionConfig not labelled
	// cluster.x-k8s.io/watch-filter with this value to another manager.
	WatchFilterValue string
	// SecretMetadata is the cache the CA Secret watch reads Secret
	// metadata from, one that sees every Secret; required. The manager's
	// own is not assumed: Cluster API's sees only Secrets labelled with a
	// cluster name, and the watch would silently miss a CA Secret change.
	SecretMetadata ctrlcache.Cache
	// ResponseCache takes each config's max age from
	// userfacing.ResponseCacheMaxAgeAnnotation, and the config reports it
	// in userfacing.ResponsesCachedCondition.
	ResponseCache ResponseCachePolicy

	writes objstatus.Writes
	// discovered holds, by config name, the inputs and time of its last
	// successful Discovery (a discovery), so that a reconcile for anything
	// that cannot change the answer (settings, selector, an annotation, the
	// Secret of a CA already in place) runs none.
	discovered sync.Map
	// injecting holds, by config name, the hash of the caBundle a reconcile
	// is writing into the spec. That reconcile discovers with it, so the
	// update event of its own write needs no second one.
	injecting sync.Map
	// discoveryAsked holds, by config name,
	// the events that asked for Discovery and no reconcile has run it for
	// yet; settled holds the status each config's last reconcile left.
	discoveryAsked, settled sync.Map
	// proven is where each config's calls go while a Discovery with a new
	// clientConfig has not succeeded.
	proven provenClientConfigs
	// awaited brings the reconcile of every config the gate waits for,
	// even one no event will bring: deleted between the rebuild's list and
	// the informer's.
	awaited chan event.GenericEvent
	// listReader, when set, is what warm-up and the rebuild as leader list
	// ExtensionConfigs with instead of the manager's APIReader: a test
	// gives it a list that kube-apiserver answered before a change.
	listReader client.Reader
}

// +kubebuilder:rbac:groups=runtime.cluster.x-k8s.io,resources=extensionconfigs,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=runtime.cluster.x-k8s.io,resources=extensionconfigs/status,verbs=patch
// Secrets: the metadata watch needs list and watch, CA injection a get. RBAC
// cannot narrow a get to the Secrets that annotations name, and a metadata
// list is authorised like a full one; we only ever request metadata or the
// one named Secret.
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch

// SetupWithManager registers the controller, its Secret index and watch,
// the warm-up runnable, and, on every replica, the response cache's max
// ages from the informer. The controller retries with package backoff's
// rate limiter, whatever options.RateLimiter holds.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	metrics.Register()
	if err := mgr.GetFieldIndexer().IndexField(ctx, &runtimev1.ExtensionConfig{}, caSecretIndex, caSecretKeys); err != nil {
		return fmt.Errorf("index ExtensionConfigs by CA secret: %w", err)
	}
	// Only Secrets' metadata is watched: a CA is read uncached, from the
	// one Secret a config names.
	if r.SecretMetadata == nil {
		return errors.New("extensionconfig controller: no SecretMetadata cache to watch CA Secrets in")
	}
	secret := &metav1.PartialObjectMetadata{}
	secret.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	// Discovery runs when Cluster API's controller runs it for anything a
	// user does: every create (and so every config on taking the lead),
	// every update of the spec, labels or annotations, and every status
	// another writer changed. Users and tools rely on it: `kubectl
	// annotate` to refresh, Helm and Argo CD checksum annotations on every
	// deploy. Our own status writes, our caBundle injection and resyncs run
	// none, nor call anything.
	events := builder.WithPredicates(r.everyChangePredicate())
	r.awaited = make(chan event.GenericEvent)
	// Resyncs pass no event, so backoff alone brings a failed Discovery
	// back: capped, it does within a minute of the extension's return.
	options.RateLimiter = backoff.RateLimiter()
	err := ctrl.NewControllerManagedBy(mgr).
		Named("extensionconfig").
		WithOptions(options).
		For(&runtimev1.ExtensionConfig{}, events).
		WatchesRawSource(source.Kind(r.SecretMetadata, secret, handler.TypedEnqueueRequestsFromMapFunc(r.configsForSecret))).
		WatchesRawSource(source.Channel(r.awaited, &handler.EnqueueRequestForObject{})).
		Complete(r)
	if err != nil {
		return fmt.Errorf("build extensionconfig controller: %w", err)
	}
	if err := r.followExtensionConfigs(ctx, mgr.GetCache()); err != nil {
		return err
	}
	lists := r.listReader
	if lists == nil {
		lists = mgr.GetAPIReader()
	}
	if err := mgr.Add(&warmup{reader: lists, registry: r.Registry, proven: &r.proven}); err != nil {
		return err
	}
	return mgr.Add(&leaderSync{reader: lists, registry: r.Registry, proven: &r.proven, awaited: r.awaited})
}

func caSecretKeys(obj client.Object) []string {
	ref, ok := obj.GetAnnotations()[runtimev1.InjectCAFromSecretAnnotation]
	if !ok {
		return nil
	}
	return []string{ref}
}

func (r *Reconciler) configsForSecret(ctx context.Context, secret *metav1.PartialObjectMetadata) []reconcile.Request {
	list := &runtimev1.ExtensionConfigList{}
	key := secret.GetNamespace() + "/" + secret.GetName()
	if err := r.Client.List(ctx, list, client.MatchingFields{caSecretIndex: key}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "list ExtensionConfigs by CA secret", "secret", key)
		return nil
	}
	requests := make([]reconcile.Request, 0, len(list.Items))
	for _, ext := range list.Items {
		requests = append(requests, reconcile.Request{NamespacedName: types.NamespacedName{Name: ext.Name}})
	}
	return requests
}

// Reconcile brings one ExtensionConfig's status and registration up to date.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, reterr error) {
	log := ctrl.LoggerFrom(ctx)
	// Registering before the leader's rebuild could be undone by it, with
	// the older status it listed.
	select {
	case <-r.Registry.Gate().Done(registry.Rebuilt):
	case <-ctx.Done():
		return ctrl.Result{}, ctx.Err()
	}
	ext := &runtimev1.ExtensionConfig{}
	if err := r.Client.Get(ctx, req.NamespacedName, ext); err != nil {
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, err
		}
		// The rebuild's live list enqueues names the cache may not hold
		// yet (its watch reconnecting): only kube-apiserver says gone.
		if err := r.APIReader.Get(ctx, req.NamespacedName, ext); !apierrors.IsNotFound(err) {
			if err == nil {
				err = fmt.Errorf("ExtensionConfig %s exists, and the cache has not seen it yet", req.Name)
			}
			return ctrl.Result{}, err
		}
		r.forgetDeleted(req.NamespacedName)
		log.V(4).Info("ExtensionConfig gone: handlers unregistered")
		return ctrl.Result{}, nil
	}
	if err := r.fresh(ctx, ext); err != nil {
		if apierrors.IsNotFound(err) {
			r.forgetDeleted(req.NamespacedName)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	r.proven.observe(ext)
	if !ext.DeletionTimestamp.IsZero() {
		r.Registry.Unregister(ext.Name)
		r.Registry.Gate().Discovered(ext.Name)
		return ctrl.Result{}, nil
	}
	if !watchfilter.Matches(ext, r.WatchFilterValue) {
		// Should it come back, it is discovered afresh; meanwhile it is
		// another manager's, whose recorded handlers a fresh start
		// registers all the same. Calls do not wait for its Discovery.
		r.forgetConfig(ext.Name)
		r.Registry.Gate().Discovered(ext.Name)
		return ctrl.Result{}, r.registerRecorded(ctx, ext)
	}

	before := ext.DeepCopy()
	defer func() {
		r.settle(ext)
		if err := objstatus.Patch(ctx, &r.writes, r.Client, before, ext, statusOf); err != nil {
			reterr = errors.Join(reterr, err)
			// Status still records what it recorded: so does the registry,
			// as a fresh start would build it.
			recorded := ext.DeepCopy()
			recorded.Status = before.Status
			reterr = errors.Join(reterr, r.registerRecorded(ctx, recorded))
			return
		}
		r.settle(ext)
		// Calls waiting for this config go on once status records what
		// its Discovery found: before, a failed write would take its
		// handlers back out of the registry with the gate open.
		if meta.IsStatusConditionTrue(ext.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition) {
			r.Registry.Gate().Discovered(ext.Name)
		}
	}()

	if objstatus.SetPaused(ext, "ExtensionConfig") {
		// Unpausing discovers again, as Cluster API's controller does.
		// Nothing is discovered meanwhile: calls do not wait for it.
		r.forgetConfig(ext.Name)
		r.Registry.Gate().Discovered(ext.Name)
		r.reconcileResponseCache(ext, true)
		// A fresh start registers what status records, paused or not; so
		// does a change of settings or selector made while paused (a new
		// clientConfig still waits for a Discovery that works with it).
		return ctrl.Result{}, r.registerRecorded(ctx, ext)
	}
	retryCA, caErr := r.reconcileCABundle(ctx, ext)
	if ext.Generation != before.Generation {
		// The injected caBundle moved the generation, and the event of
		// that write is dropped as our own: the conditions set above
		// observe the new one too.
		objstatus.SetPaused(ext, "ExtensionConfig")
	}
	r.reconcileResponseCache(ext, false)

	// Before anything is called, and whatever fails next, the registry
	// holds the handlers status records with the spec's settings and
	// selector, which take effect and void the config's cached answers
	// while Discovery fails or takes its time. Calls go on to the last
	// proven clientConfig until a Discovery with the new one succeeds.
	if !r.Registry.Holds(r.proven.serving(ext)) {
		if err := r.registerRecorded(ctx, ext); err != nil {
			r.setNotDiscovered(ext, runtimev1.ExtensionConfigNotDiscoveredReason, "Registering handlers failed: "+err.Error())
			return ctrl.Result{}, err
		}
	}
	if _, err := metav1.LabelSelectorAsSelector(ext.Spec.NamespaceSelector); err != nil {
		r.setNotDiscovered(ext, userfacing.InvalidNamespaceSelectorReason, "spec.namespaceSelector is invalid: "+err.Error())
		// Only a spec change can fix it, and that triggers a reconcile.
		// It admits no Cluster meanwhile: calls do not wait for it.
		r.Registry.Gate().Discovered(ext.Name)
		return ctrl.Result{}, nil
	}
	if caErr != nil {
		r.setNotDiscovered(ext, userfacing.CAInjectionFailedReason, caErr.Error())
		if retryCA {
			// A read or write of kube-apiserver that failed may pass next
			// time; a write may even have committed with its answer lost,
			// and its event, taken for our own, dropped.
			return ctrl.Result{}, caErr
		}
		// The Secret watch brings us back when the Secret appears or changes,
		// if it can see it: with --namespace it sees no other namespace.
		return ctrl.Result{RequeueAfter: userfacing.MaxRetryDelay}, nil
	}
	return r.reconcileDiscovery(ctx, ext)
}

// fresh makes ext, just read from the cache, at least as new as both our
// last status write and the object the registry was last built from: the
// leader's rebuild lists live, and this replica's cache may lag behind it.
func (r *Reconciler) fresh(ctx context.Context, ext *runtimev1.ExtensionConfig) error {
	if err := r.writes.Fresh(ctx, r.APIReader, ext); err != nil {
		return err
	}
	registered, ok := r.Registry.ResourceVersionOf(ext.Name)
	if !ok {
		return nil
	}
	if cmp, err := resourceversion.CompareResourceVersion(ext.ResourceVersion, registered); err == nil && cmp >= 0 {
		return nil
	}
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(ext), ext); err != nil {
		return fmt.Errorf("read %s past the cache, which lags behind the registration: %w", ext.Name, err)
	}
	return nil
}

// forgetDeleted drops everything kept for a config that is gone.
func (r *Reconciler) forgetDeleted(key types.NamespacedName) {
	r.writes.Forget(key)
	r.settled.Delete(key.Name)
	r.discoveryAsked.Delete(key.Name)
	r.injecting.Delete(key.Name)
	r.forgetConfig(key.Name)
	r.proven.forget(key.Name)
	r.Registry.Unregister(key.Name)
	r.Registry.Gate().Discovered(key.Name)
	// Its Discovery calls are counted under its name.
	metrics.ForgetHandler(key.Name)
}

// reconcileCABundle copies ca.crt of the annotated Secret into
// spec.clientConfig.caBundle when they differ. retry tells a failure that
// may pass on its own (kube-apiserver's) from one that waits for the
// annotation or the Secret to change.
func (r *Reconciler) reconcileCABundle(ctx context.Context, ext *runtimev1.ExtensionConfig) (retry bool, err error) {
	ref, ok := ext.Annotations[runtimev1.InjectCAFromSecretAnnotation]
	if !ok {
		return false, nil
	}
	namespace, name, found := strings.Cut(ref, "/")
	if !found || namespace == "" || name == "" || strings.Contains(name, "/") {
		return false, fmt.Errorf("annotation %s must be <namespace>/<name>, got %q", runtimev1.InjectCAFromSecretAnnotation, ref)
	}
	secret := &corev1.Secret{}
	if err := r.APIReader.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, secret); err != nil {
		if apierrors.IsNotFound(err) {
			return false, fmt.Errorf("CA secret %s named by annotation %s does not exist", ref, runtimev1.InjectCAFromSecretAnnotation)
		}
		return true, fmt.Errorf("read CA secret %s: %w", ref, err)
	}
	ca := secret.Data["ca.crt"]
	if len(ca) == 0 {
		return false, fmt.Errorf("CA secret %s has no ca.crt", ref)
	}
	if string(ca) == string(ext.Spec.ClientConfig.CABundle) {
		// Nothing to write, so nothing of ours is on its way: a note left
		// by a write whose event never came must not drop someone else's.
		r.injecting.Delete(ext.Name)
		return false, nil
	}
	base := ext.DeepCopy()
	ext.Spec.ClientConfig.CABundle = ca
	// Noted before the write, so its event cannot arrive first.
	r.injecting.Store(ext.Name, sha256.Sum256(ca))
	if err := r.Client.Patch(ctx, ext, client.MergeFrom(base)); err != nil {
		r.injecting.Delete(ext.Name)
		return true, fmt.Errorf("write caBundle from secret %s: %w", ref, err)
	}
	if ext.Generation == base.Generation {
		// The server held that bundle already (our cached copy was old):
		// no event follows.
		r.injecting.Delete(ext.Name)
	}
	// Never log the bundle itself.
	ctrl.LoggerFrom(ctx).V(4).Info("injected caBundle", "secret", ref)
	return false, nil
}

// notOwnInjection drops the update event of a caBundle this controller
// injected, when that is all that changed: the reconcile that wrote it
// discovers with it. Any other change, or a bundle not ours, passes.
func (r *Reconciler) notOwnInjection(e event.UpdateEvent) bool {
	oldExt, okOld := e.ObjectOld.(*runtimev1.ExtensionConfig)
	newExt, okNew := e.ObjectNew.(*runtimev1.ExtensionConfig)
	if !okOld || !okNew {
		return true
	}
	injected, ok := r.injecting.Load(newExt.Name)
	if !ok || injected != sha256.Sum256(newExt.Spec.ClientConfig.CABundle) {
		return true
	}
	oldSpec := oldExt.Spec.DeepCopy()
	oldSpec.ClientConfig.CABundle = newExt.Spec.ClientConfig.CABundle
	if !equality.Semantic.DeepEqual(*oldSpec, newExt.Spec) || metadataChanged(oldExt, newExt) {
		return true
	}
	r.injecting.CompareAndDelete(newExt.Name, injected)
	return false
}

func (r *Reconciler) reconcileDiscovery(ctx context.Context, ext *runtimev1.ExtensionConfig) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	interval := r.RediscoveryInterval
	if interval <= 0 {
		interval = userfacing.DefaultRediscoveryInterval
	}
	asked := r.takeDiscoveryRequest(ext.Name)
	if remaining, fresh := r.discoveryFresh(ext, interval); fresh && !asked {
		// A settings or selector change took effect above, with the
		// handlers status already records.
		log.V(4).Info("Discovery skipped: its endpoint and CA are as they were for the last one", "nextDiscoveryIn", remaining)
		markDiscovered(ext)
		return ctrl.Result{RequeueAfter: remaining}, nil
	}
	started := time.Now()
	handlers, err := r.Discoverer.Discover(ctx, ext)
	outcome := metrics.CallSuccess
	if err != nil {
		outcome = metrics.CallError
	}
	metrics.ObserveCall(runtimecatalog.HookName(runtimehooksv1.Discovery), ext.Name, outcome, started)
	if err != nil {
		// Keep status.handlers, and calls on the last proven clientConfig:
		// the last good answer is still the best one we have, and the
		// condition says it is stale.
		r.setNotDiscovered(ext, runtimev1.ExtensionConfigNotDiscoveredReason, "Discovery failed: "+err.Error())
		return ctrl.Result{}, fmt.Errorf("discover %s: %w", ext.Name, err)
	}
	// Under their full names, as Cluster API records them: its warm-up,
	// and anything else reading status, expects them.
	ext.Status.Handlers = handlers
	r.proven.discovered(ext)
	if err := r.register(ctx, ext); err != nil {
		return ctrl.Result{}, err
	}
	r.discovered.Store(ext.Name, discoveryOf(ext, started))
	return ctrl.Result{RequeueAfter: interval}, nil
}

// register registers the handlers ext's status records and marks it
// Discovered.
func (r *Reconciler) register(ctx context.Context, ext *runtimev1.ExtensionConfig) error {
	if err := r.registerRecorded(ctx, ext); err != nil {
		r.setNotDiscovered(ext, runtimev1.ExtensionConfigNotDiscoveredReason, "Registering handlers failed: "+err.Error())
		return err
	}
	markDiscovered(ext)
	return nil
}

// markDiscovered sets Discovered to True, in the v1beta1 conditions too.
func markDiscovered(ext *runtimev1.ExtensionConfig) {
	objstatus.SetCondition(ext, runtimev1.ExtensionConfigDiscoveredCondition, metav1.ConditionTrue, runtimev1.ExtensionConfigDiscoveredReason, "")
	objstatus.SetV1Beta1Condition(ext, runtimev1.RuntimeExtensionDiscoveredV1Beta1Condition, corev1.ConditionTrue, "", "", "")
}

// registerRecorded registers the handlers ext's status records under its
// spec as it is, but for a clientConfig no Discovery has succeeded with
// yet, and leaves the conditions alone. Recorded handlers that cannot be
// registered at all (an apiVersion that does not parse) leave the config
// with none, as warm-up leaves it.
func (r *Reconciler) registerRecorded(ctx context.Context, ext *runtimev1.ExtensionConfig) error {
	log := ctrl.LoggerFrom(ctx)
	changed, skipped, err := r.Registry.Register(r.proven.serving(ext))
	logSkipped(log, ext.Name, skipped)
	if err != nil {
		r.Registry.Unregister(ext.Name)
		return fmt.Errorf("register the handlers status records: %w", err)
	}
	log.V(4).Info("registered", "handlers", len(ext.Status.Handlers), "changedHandlers", changed)
	return nil
}

// logSkipped names each recorded handler the registry could not take as a
// handler of the ExtensionConfig.
func logSkipped(log logr.Logger, extensionConfig string, skipped []registration.SkippedHandler) {
	for _, s := range skipped {
		log.Info("skipping a recorded handler that cannot belong to this ExtensionConfig",
			"extensionConfig", extensionConfig, "handler", s.Name, "reason", s.Reason)
	}
}

// setNotDiscovered sets Discovered to False, and the Discovered condition
// v1beta1 clients read with Cluster API's DiscoveryFailed reason (our own
// reason where Cluster API has no such failure). The next reconcile
// discovers.
func (r *Reconciler) setNotDiscovered(ext *runtimev1.ExtensionConfig, reason, message string) {
	r.discovered.Delete(ext.Name)
	objstatus.SetCondition(ext, runtimev1.ExtensionConfigDiscoveredCondition, metav1.ConditionFalse, reason, message)
	v1beta1Reason := reason
	if reason == runtimev1.ExtensionConfigNotDiscoveredReason {
		v1beta1Reason = runtimev1.DiscoveryFailedV1Beta1Reason
	}
	objstatus.SetV1Beta1Condition(ext, runtimev1.RuntimeExtensionDiscoveredV1Beta1Condition, corev1.ConditionFalse,
		v1beta1Reason, clusterv1.ConditionSeverityError, message)
}

// statusOf is the part of an ExtensionConfig that objstatus.Patch compares.
func statusOf(obj *runtimev1.ExtensionConfig) any { return obj.Status }
