package clusterclass

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/objstatus"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/watchfilter"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/callcache"
	runtimeclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/variableschema"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
)

// HookCaller calls one hook handler; *runtimeclient.Client implements it.
type HookCaller interface {
	Call(ctx context.Context, config runtimev1.ClientConfig, hook catalog.GroupVersionHook, handlerName string,
		timeout time.Duration, settings map[string]string, request runtime.Object, response runtimehooksv1.ResponseObject) error
}

// VariablesCache is the call cache for DiscoverVariables answers.
type VariablesCache = callcache.Cache[[]clusterv1.ClusterClassVariable]

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
	Schemas *variableschema.Cache
	// WatchFilterValue, when set, leaves every ClusterClass not labelled
	// cluster.x-k8s.io/watch-filter with this value to another manager.
	WatchFilterValue string
	// WithoutDiscoverVariables publishes inline variables only, as Cluster
	// API's ClusterClass controller does while its RuntimeSDK feature gate
	// is off: no extension is called.
	WithoutDiscoverVariables bool
	// RefreshInterval, when positive, is how often DiscoverVariables
	// answers in use are checked for reaching the cache's max age (and
	// asked again); zero refreshes nothing.
	RefreshInterval time.Duration
	// NilSelector is how a nil namespaceSelector reads, here and in the
	// event mapping: the manager's one reading, which its runtime client
	// must share.
	NilSelector extensionindex.NilSelector

	writes     objstatus.Writes
	admissions admissionLog
}

// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusterclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusterclasses/status,verbs=patch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

// SetupWithManager registers the controller. The ClusterClass indexes of
// extensionindex must already be registered with the manager.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, options controller.Options) error {
	metrics.Register()
	mapper := extensionindex.Mapper{Reader: mgr.GetCache(), Applied: r.admissions.lookup, NilSelector: r.NilSelector}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &clusterv1.ClusterClass{}, byTemplateCRD, templateCRDKeys); err != nil {
		return fmt.Errorf("index ClusterClasses by template CRD: %w", err)
	}
	err := ctrl.NewControllerManagedBy(mgr).
		Named("clusterclass").
		WithOptions(options).
		WatchesRawSource(clusterClassSource(mgr.GetCache(), &indexSizes{})).
		WatchesRawSource(r.registrySource(mapper)).
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
	r.Cache.Release(req.String())
	if err := r.Client.Get(ctx, req.NamespacedName, cc); err != nil {
		if apierrors.IsNotFound(err) {
			r.writes.Forget(req.NamespacedName)
			r.admissions.forget(req.NamespacedName)
			r.Schemas.Release(req.String())
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
	case <-r.Registry.Synced():
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

// reconcileVariables publishes status.variables and sets VariablesReady.
// It reports whether the variables are ready, and an error when an
// extension failed, or failed under failurePolicy Ignore, and the
// reconcile is worth retrying.
func (r *Reconciler) reconcileVariables(ctx context.Context, cc *clusterv1.ClusterClass, res *resolution) (bool, error) {
	sources := []variableSource{{from: clusterv1.VariableDefinitionFromInline, variables: cc.Spec.Variables}}
	var failures []string
	// What this pass checks becomes what the ClusterClass holds in the
	// schema cache; what it no longer has is forgotten.
	schemas := r.Schemas.Check(client.ObjectKeyFromObject(cc).String())
	defer func() {
		schemas.Commit()
		metrics.VariableSchemasCached.Set(float64(r.Schemas.Len()))
	}()
	for i, v := range cc.Spec.Variables {
		if errs := schemas.Validate(v, field.NewPath("spec", "variables").Index(i)); len(errs) > 0 {
			failures = append(failures, fmt.Sprintf("inline variable %q is invalid: %v", v.Name, errs.ToAggregate()))
		}
	}
	discovered, failed, retry := r.discoverPatches(ctx, cc, res, schemas)
	sources, failures = append(sources, discovered...), append(failures, failed...)
	if len(failures) > 0 {
		// Keep the last good status.variables: a partial answer would make
		// Clusters fail validation against variables that still exist.
		// Extension failures are retried with backoff; a missing or
		// inadmissible handler waits for the registry or Namespace to change.
		setVariablesNotReady(cc, "Variables not updated, keeping the last known variables: "+strings.Join(failures, "; "))
		return false, retry
	}

	variables, conflicts := mergeVariables(sources)
	if problems := beyondStatusBounds(variables); len(problems) > 0 {
		// The CRD would refuse the write, and the reconcile would fail on
		// every retry: say why instead, keeping the last good variables.
		setVariablesNotReady(cc, "Variables not updated, keeping the last known variables: "+strings.Join(problems, "; "))
		return false, retry
	}
	cc.Status.Variables = variables
	if len(conflicts) > 0 {
		// Cluster API publishes the conflicting definitions and reports the
		// conflict as a failed variable discovery; so do we.
		setVariablesNotReady(cc, "Variables defined differently by several sources: "+strings.Join(conflicts, "; "))
		return false, retry
	}
	objstatus.SetCondition(cc, clusterv1.ClusterClassVariablesReadyCondition, metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason, "")
	objstatus.SetV1Beta1Condition(cc, clusterv1.ClusterClassVariablesReconciledV1Beta1Condition, corev1.ConditionTrue, "", "", "")
	return true, retry
}

// discoverPatches returns the variables of every external patch with a
// discoverVariablesExtension, why the others have none, and the last
// extension failure, failurePolicy Ignore's included: the reconcile is
// retried with backoff until the extension answers.
func (r *Reconciler) discoverPatches(ctx context.Context, cc *clusterv1.ClusterClass, res *resolution, schemas *variableschema.Check,
) (sources []variableSource, failures []string, retry error) {
	for _, patch := range cc.Spec.Patches {
		if patch.External == nil || patch.External.DiscoverVariablesExtension == "" || r.WithoutDiscoverVariables {
			continue
		}
		where := fmt.Sprintf("patch %q (%s)", patch.Name, patch.External.DiscoverVariablesExtension)
		vars, err := r.discover(ctx, client.ObjectKeyFromObject(cc), patch, res)
		switch {
		case errors.As(err, new(*ignoredCall)):
			// Cluster API's client answers it with an empty success: the
			// patch adds no variables, which does not fail the others.
			retry = fmt.Errorf("%s: failurePolicy Ignore, so it adds no variables until it answers: %w", where, err)
			continue
		case errors.As(err, new(*callError)):
			failures = append(failures, fmt.Sprintf("%s: %v", where, err))
			retry = err
			continue
		case err != nil:
			failures = append(failures, fmt.Sprintf("%s: %v", where, err))
			continue
		}
		// An extension's schemas are checked like inline ones: a schema
		// Clusters cannot be validated against must never be published.
		for _, v := range vars {
			if errs := schemas.Validate(v, field.NewPath("variables").Key(v.Name)); len(errs) > 0 {
				failures = append(failures, fmt.Sprintf("%s: variable %q is invalid: %v", where, v.Name, errs.ToAggregate()))
			}
		}
		sources = append(sources, variableSource{from: patch.Name, variables: vars})
	}
	return sources, failures, retry
}

// setVariablesNotReady sets VariablesReady, and the VariablesReconciled
// condition v1beta1 clients read, to False with Cluster API's reasons.
func setVariablesNotReady(cc *clusterv1.ClusterClass, message string) {
	objstatus.SetCondition(cc, clusterv1.ClusterClassVariablesReadyCondition, metav1.ConditionFalse,
		clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason, message)
	objstatus.SetV1Beta1Condition(cc, clusterv1.ClusterClassVariablesReconciledV1Beta1Condition, corev1.ConditionFalse,
		clusterv1.VariableDiscoveryFailedV1Beta1Reason, clusterv1.ConditionSeverityError, message)
}

// callError marks a failure of the extension itself (worth retrying), as
// opposed to a handler that is not registered or not admitted.
type callError struct{ err error }

func (e *callError) Error() string { return e.err.Error() }
func (e *callError) Unwrap() error { return e.err }

// ignoredCall marks a failed call that the handler's failurePolicy Ignore
// turns into an answer without variables, as Cluster API's runtime client
// does: one that got no answer a response could be read from.
type ignoredCall struct{ err error }

func (e *ignoredCall) Error() string { return e.err.Error() }
func (e *ignoredCall) Unwrap() error { return e.err }

// failedDiscovery wraps the error of a handler's DiscoverVariables call by
// what the reconcile makes of it: ignored under failurePolicy Ignore when
// the policy applies to it, a failure to retry otherwise.
func failedDiscovery(policy runtimev1.FailurePolicy, err error) error {
	if policy == runtimev1.FailurePolicyIgnore && runtimeclient.FailurePolicyApplies(err) {
		return &ignoredCall{err: err}
	}
	return &callError{err: err}
}

// discover returns the variables one patch's DiscoverVariables handler
// declares, from the cache when the same registration and settings were
// asked before.
func (r *Reconciler) discover(ctx context.Context, user types.NamespacedName, patch clusterv1.ClusterClassPatch, res *resolution) ([]clusterv1.ClusterClassVariable, error) {
	key := patchField{patch.Name, extensionindex.FieldDiscoverVariables}
	if problem, unusable := res.problems[key]; unusable {
		return nil, fmt.Errorf("%s: no call made", problem)
	}
	handler := res.usable[key]

	effective := runtimeclient.MergeSettings(handler.Settings, patch.External.Settings)
	started := time.Now()
	vars, outcome, err := r.Cache.GetFor(ctx, user.String(), handler.Name, handler.Fingerprint, effective,
		func(ctx context.Context) ([]clusterv1.ClusterClassVariable, error) {
			// Counted here, so the refresher's calls, which reuse this
			// function, are counted as calls too.
			started := time.Now()
			request := &runtimehooksv1.DiscoverVariablesRequest{}
			request.Settings = patch.External.Settings
			response := &runtimehooksv1.DiscoverVariablesResponse{}
			timeout := time.Duration(handler.TimeoutSeconds) * time.Second
			err := r.Caller.Call(ctx, handler.ClientConfig, handler.Hook, handler.HandlerName, timeout, handler.Settings, request, response)
			metrics.ObserveCall("DiscoverVariables", handler.Name, callOutcome(callcache.Called, err), started)
			if err != nil {
				return nil, err
			}
			return response.Variables, nil
		})
	ctrl.LoggerFrom(ctx).V(4).Info("discover variables", "handler", handler.Name, "outcome", outcome)
	if outcome != callcache.Called {
		metrics.ObserveCall("DiscoverVariables", handler.Name, callOutcome(outcome, err), started)
	}
	metrics.VariablesCacheEntries.Set(float64(r.Cache.Len()))
	if err != nil {
		// Applied here, not in the cached call: the cache keeps an ignored
		// failure as a failure, so the next call can still bring variables.
		return nil, failedDiscovery(handler.FailurePolicy, err)
	}
	return vars, nil
}

func callOutcome(outcome callcache.Outcome, err error) string {
	switch {
	case outcome == callcache.Hit:
		return metrics.CallCacheHit
	case outcome == callcache.Shared:
		return metrics.CallShared
	case outcome == callcache.FailureShared:
		return metrics.CallFailureShared
	case err != nil:
		return metrics.CallError
	default:
		return metrics.CallSuccess
	}
}

// admitted checks the handler's namespaceSelector against the namespace's
// labels, read from the metadata cache; a nil selector reads as
// r.NilSelector says, whatever the labels.
func (r *Reconciler) admitted(ctx context.Context, namespace string, handler registry.Handler) (bool, error) {
	if handler.NamespaceSelector == nil {
		return r.NilSelector.Admits(nil, nil)
	}
	ns := &metav1.PartialObjectMetadata{}
	ns.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Namespace"))
	if err := r.Client.Get(ctx, client.ObjectKey{Name: namespace}, ns); err != nil {
		return false, fmt.Errorf("read namespace %q: %w", namespace, err)
	}
	admitted, err := r.NilSelector.Admits(handler.NamespaceSelector, ns.Labels)
	if err != nil {
		return false, fmt.Errorf("ExtensionConfig %q: %w", handler.ExtensionConfig, err)
	}
	return admitted, nil
}

type variableSource struct {
	from      string
	variables []clusterv1.ClusterClassVariable
}

// mergeVariables builds status.variables: one entry per variable name,
// sorted by name, with a definition per source in source order (inline
// first, then patches), and the names whose definitions differ.
func mergeVariables(sources []variableSource) ([]clusterv1.ClusterClassStatusVariable, []string) {
	byName := map[string]*clusterv1.ClusterClassStatusVariable{}
	for _, src := range sources {
		for _, v := range src.variables {
			sv, ok := byName[v.Name]
			if !ok {
				sv = &clusterv1.ClusterClassStatusVariable{Name: v.Name}
				byName[v.Name] = sv
			}
			sv.Definitions = append(sv.Definitions, clusterv1.ClusterClassStatusVariableDefinition{
				From: src.from,
				// The API requires it in status; unset means not required.
				Required:                  ptr.To(ptr.Deref(v.Required, false)),
				DeprecatedV1Beta1Metadata: *v.DeprecatedV1Beta1Metadata.DeepCopy(),
				Schema:                    *v.Schema.DeepCopy(),
			})
		}
	}
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	sort.Strings(names)
	variables := make([]clusterv1.ClusterClassStatusVariable, 0, len(names))
	var conflicts []string
	for _, name := range names {
		sv := byName[name]
		conflict := false
		first := sv.Definitions[0]
		for _, d := range sv.Definitions[1:] {
			if ptr.Deref(d.Required, false) != ptr.Deref(first.Required, false) ||
				!equality.Semantic.DeepEqual(withoutFalseFlags(&d.Schema.OpenAPIV3Schema), withoutFalseFlags(&first.Schema.OpenAPIV3Schema)) ||
				!equality.Semantic.DeepEqual(d.DeprecatedV1Beta1Metadata, first.DeprecatedV1Beta1Metadata) {
				conflict = true
			}
		}
		sv.DefinitionsConflict = ptr.To(conflict)
		if conflict {
			froms := make([]string, 0, len(sv.Definitions))
			for _, d := range sv.Definitions {
				froms = append(froms, d.From)
			}
			conflicts = append(conflicts, fmt.Sprintf("%q (from %s)", name, strings.Join(froms, ", ")))
		}
		variables = append(variables, *sv)
	}
	return variables, conflicts
}

// Bounds the ClusterClass CRD puts on status.variables.
const (
	maxStatusVariables   = 1000
	maxDefinitionsPerVar = 100
)

// beyondStatusBounds names what in variables the CRD would refuse.
func beyondStatusBounds(variables []clusterv1.ClusterClassStatusVariable) []string {
	var problems []string
	if len(variables) > maxStatusVariables {
		problems = append(problems, fmt.Sprintf("%d variables in all, more than the %d ClusterClass status holds", len(variables), maxStatusVariables))
	}
	for _, v := range variables {
		if len(v.Definitions) > maxDefinitionsPerVar {
			problems = append(problems, fmt.Sprintf("variable %q has %d definitions, more than the %d ClusterClass status holds", v.Name, len(v.Definitions), maxDefinitionsPerVar))
		}
	}
	return problems
}

// withoutFalseFlags returns a copy of a schema without the boolean flags
// set to false (uniqueItems, exclusiveMinimum and exclusiveMaximum,
// x-kubernetes-preserve-unknown-fields, x-kubernetes-int-or-string), at
// every depth: false says the same as leaving the flag out, so two
// definitions differing only there do not conflict, as in Cluster API.
func withoutFalseFlags(in *clusterv1.JSONSchemaProps) *clusterv1.JSONSchemaProps {
	if in == nil {
		return nil
	}
	out := in.DeepCopy()
	for _, flag := range []**bool{&out.UniqueItems, &out.ExclusiveMaximum, &out.ExclusiveMinimum, &out.XPreserveUnknownFields, &out.XIntOrString} {
		if !ptr.Deref(*flag, false) {
			*flag = nil
		}
	}
	for name, property := range out.Properties {
		out.Properties[name] = *withoutFalseFlags(&property)
	}
	out.AdditionalProperties = withoutFalseFlags(out.AdditionalProperties)
	out.Items = withoutFalseFlags(out.Items)
	out.Not = withoutFalseFlags(out.Not)
	for _, list := range [][]clusterv1.JSONSchemaProps{out.AllOf, out.OneOf, out.AnyOf} {
		for i := range list {
			list[i] = *withoutFalseFlags(&list[i])
		}
	}
	return out
}

// statusOf is the part of a ClusterClass that objstatus.Patch compares.
func statusOf(obj *clusterv1.ClusterClass) any { return obj.Status }
