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
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/contract"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/objstatus"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
)

// Templates are owned by the ClusterClasses that reference them, so that
// `clusterctl move` carries them along and garbage collection deletes them
// with their last ClusterClass, as Cluster API's own controller does. Their
// metadata is watched, so that an owner already set costs no request.
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io;bootstrap.cluster.x-k8s.io;controlplane.cluster.x-k8s.io,resources=*,verbs=get;list;watch;patch
// The contract label on a template's CRD names its newest API version.
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch

// templateRefs returns every template a ClusterClass references, once each,
// in the order Cluster API visits them.
func templateRefs(cc *clusterv1.ClusterClass) []*corev1.ObjectReference {
	refs := []clusterv1.ClusterClassTemplateReference{
		cc.Spec.Infrastructure.TemplateRef,
		cc.Spec.ControlPlane.TemplateRef,
		cc.Spec.ControlPlane.MachineInfrastructure.TemplateRef,
	}
	for _, md := range cc.Spec.Workers.MachineDeployments {
		refs = append(refs, md.Bootstrap.TemplateRef, md.Infrastructure.TemplateRef)
	}
	for _, mp := range cc.Spec.Workers.MachinePools {
		refs = append(refs, mp.Bootstrap.TemplateRef, mp.Infrastructure.TemplateRef)
	}
	seen := map[corev1.ObjectReference]bool{}
	var out []*corev1.ObjectReference
	for _, r := range refs {
		if !r.IsDefined() {
			continue
		}
		ref := r.ToObjectReference(cc.Namespace)
		if seen[*ref] {
			continue
		}
		seen[*ref] = true
		out = append(out, ref)
	}
	return out
}

// reconcileTemplates makes the ClusterClass an owner of every template it
// references and sets RefVersionsUpToDate: whether each reference names the
// newest API version its CRD's contract label lists. A template or CRD that
// cannot be read makes the condition Unknown and the reconcile fail, so it
// is retried with backoff until it appears (template metadata is read
// through watches, but their events enqueue nothing: a template deleted
// after its ClusterClass reconciled is noticed at the next reconcile).
func (r *Reconciler) reconcileTemplates(ctx context.Context, cc *clusterv1.ClusterClass) error {
	var problems []error
	var outdated []string
	for _, ref := range templateRefs(cc) {
		if err := r.ensureOwned(ctx, cc, ref); err != nil {
			problems = append(problems, err)
			continue
		}
		latest, err := r.latestAPIVersion(ctx, ref.GroupVersionKind().GroupKind())
		if err != nil {
			problems = append(problems, err)
			continue
		}
		if current := ref.GroupVersionKind().Version; current != latest {
			outdated = append(outdated, fmt.Sprintf("* %s %s: current: %s, latest: %s", ref.Kind, ref.Name, current, latest))
		}
	}
	switch {
	case len(problems) > 0:
		err := errors.Join(problems...)
		message := "Templates could not be checked: " + strings.ReplaceAll(err.Error(), "\n", "; ")
		objstatus.SetCondition(cc, clusterv1.ClusterClassRefVersionsUpToDateCondition, metav1.ConditionUnknown,
			clusterv1.ClusterClassRefVersionsUpToDateInternalErrorReason, message)
		objstatus.SetV1Beta1Condition(cc, clusterv1.ClusterClassRefVersionsUpToDateV1Beta1Condition, corev1.ConditionUnknown,
			clusterv1.ClusterClassRefVersionsUpToDateInternalErrorV1Beta1Reason, "", message)
		return err
	case len(outdated) > 0:
		message := strings.Join(append([]string{"The following templateRefs are not using the latest apiVersion:"}, outdated...), "\n")
		objstatus.SetCondition(cc, clusterv1.ClusterClassRefVersionsUpToDateCondition, metav1.ConditionFalse,
			clusterv1.ClusterClassRefVersionsNotUpToDateReason, message)
		objstatus.SetV1Beta1Condition(cc, clusterv1.ClusterClassRefVersionsUpToDateV1Beta1Condition, corev1.ConditionFalse,
			clusterv1.ClusterClassOutdatedRefVersionsV1Beta1Reason, clusterv1.ConditionSeverityWarning, message)
	default:
		objstatus.SetCondition(cc, clusterv1.ClusterClassRefVersionsUpToDateCondition, metav1.ConditionTrue,
			clusterv1.ClusterClassRefVersionsUpToDateReason, "")
		objstatus.SetV1Beta1Condition(cc, clusterv1.ClusterClassRefVersionsUpToDateV1Beta1Condition, corev1.ConditionTrue, "", "", "")
	}
	return nil
}

// ensureOwned adds the ClusterClass to a template's ownerReferences (never
// as controller). The patch carries the resourceVersion read: ClusterClasses
// sharing a template add themselves concurrently, and a merge patch of the
// list without it would drop another's entry.
func (r *Reconciler) ensureOwned(ctx context.Context, cc *clusterv1.ClusterClass, ref *corev1.ObjectReference) error {
	desired := metav1.OwnerReference{APIVersion: clusterv1.GroupVersion.String(), Kind: "ClusterClass", Name: cc.Name, UID: cc.UID}
	// Nearly always the owner is there already: the cached metadata says
	// so without a request to kube-apiserver, where reading the template
	// itself would cost one per template per reconcile. A cache that lags
	// or misses only sends us to the read below.
	// The first read of a kind starts its watch and waits for it to sync;
	// a kind that cannot sync (its conversion webhook down, say) must not
	// hold the worker: the read below answers instead.
	cachedCtx, cancel := context.WithTimeout(ctx, cachedTemplateReadTimeout)
	defer cancel()
	cached := &metav1.PartialObjectMetadata{}
	cached.SetGroupVersionKind(ref.GroupVersionKind())
	if err := r.Client.Get(cachedCtx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, cached); err == nil && hasOwner(cached.GetOwnerReferences(), desired) {
		return nil
	}
	where := fmt.Sprintf("%s %s/%s (%s)", ref.Kind, ref.Namespace, ref.Name, ref.APIVersion)
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		template := &unstructured.Unstructured{}
		template.SetGroupVersionKind(ref.GroupVersionKind())
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, template); err != nil {
			if apierrors.IsNotFound(err) {
				return fmt.Errorf("template %s does not exist", where)
			}
			return fmt.Errorf("read template %s: %w", where, err)
		}
		if hasOwner(template.GetOwnerReferences(), desired) {
			return nil
		}
		if canAppend(template.GetOwnerReferences(), desired) {
			// The common case, a new owner of a template that has owners:
			// a JSON patch appends to the list as the server holds it, so
			// ClusterClasses sharing a template never conflict.
			entry, err := json.Marshal(desired)
			if err != nil {
				return err
			}
			patch := []byte(`[{"op":"add","path":"/metadata/ownerReferences/-","value":` + string(entry) + `}]`)
			if err := r.Client.Patch(ctx, template, client.RawPatch(types.JSONPatchType, patch)); err != nil {
				return fmt.Errorf("set owner of template %s: %w", where, err)
			}
			return nil
		}
		before := template.DeepCopy()
		if err := controllerutil.SetOwnerReference(cc, template, r.Client.Scheme()); err != nil {
			return fmt.Errorf("set owner of template %s: %w", where, err)
		}
		err := r.Client.Patch(ctx, template, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{}))
		if err != nil && !apierrors.IsConflict(err) {
			return fmt.Errorf("set owner of template %s: %w", where, err)
		}
		return err
	})
}

// cachedTemplateReadTimeout bounds the wait for a template kind's metadata
// watch to sync.
const cachedTemplateReadTimeout = 5 * time.Second

// canAppend tells whether want can simply be added: the list exists and
// holds no entry for the same ClusterClass (which SetOwnerReference would
// update in place, say after the ClusterClass was recreated).
func canAppend(refs []metav1.OwnerReference, want metav1.OwnerReference) bool {
	if len(refs) == 0 {
		return false
	}
	for _, r := range refs {
		if r.Kind == want.Kind && r.Name == want.Name && groupOf(r.APIVersion) == groupOf(want.APIVersion) {
			return false
		}
	}
	return true
}

func groupOf(apiVersion string) string {
	group, _, _ := strings.Cut(apiVersion, "/")
	return group
}

func hasOwner(refs []metav1.OwnerReference, want metav1.OwnerReference) bool {
	for _, r := range refs {
		if r.APIVersion == want.APIVersion && r.Kind == want.Kind && r.Name == want.Name && r.UID == want.UID &&
			ptr.Deref(r.Controller, false) == ptr.Deref(want.Controller, false) {
			return true
		}
	}
	return false
}

// latestAPIVersion returns the newest API version the CRD of gk lists in
// its contract label, reading the CRD's metadata from the cache.
func (r *Reconciler) latestAPIVersion(ctx context.Context, gk schema.GroupKind) (string, error) {
	name, crd, err := contract.ReadCRD(ctx, r.Client, gk)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return "", fmt.Errorf("CustomResourceDefinition %s of %s does not exist", name, gk)
		}
		return "", fmt.Errorf("read CustomResourceDefinition %s: %w", name, err)
	}
	return contract.LatestAPIVersion(crd.Labels, name)
}

// byTemplateCRD indexes ClusterClasses by the names of the CRDs of the
// templates they reference.
const byTemplateCRD = "cluster.x-k8s.io/template-crd"

func templateCRDKeys(obj client.Object) []string {
	cc, ok := obj.(*clusterv1.ClusterClass)
	if !ok {
		return nil
	}
	seen := map[string]bool{}
	var keys []string
	for _, ref := range templateRefs(cc) {
		gk := ref.GroupVersionKind().GroupKind()
		name := contract.CRDName(gk.Group, gk.Kind)
		if !seen[name] {
			seen[name] = true
			keys = append(keys, name)
		}
	}
	return keys
}

// templateCRDSource enqueues the ClusterClasses referencing templates of a
// CRD when it is created or deleted, or its labels change: its contract
// labels decide RefVersionsUpToDate. Cluster API's resync repairs that
// every ten minutes; with no resync, the watch does it at once. Only
// metadata is watched, which the contract check reads anyway.
func (r *Reconciler) templateCRDSource(c ctrlcache.Cache) source.Source {
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	users := func(ctx context.Context, q queue, crd *metav1.PartialObjectMetadata) {
		list := &clusterv1.ClusterClassList{}
		if err := c.List(ctx, list, client.MatchingFields{byTemplateCRD: crd.Name}); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "list ClusterClasses by template CRD", "crd", crd.Name)
			return
		}
		requests := make([]reconcile.Request, 0, len(list.Items))
		for _, cc := range list.Items {
			requests = append(requests, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: cc.Namespace, Name: cc.Name}})
		}
		enqueue(q, metrics.TriggerTemplateCRD, requests...)
	}
	return source.Kind(c, crd, handler.TypedFuncs[*metav1.PartialObjectMetadata, reconcile.Request]{
		CreateFunc: func(ctx context.Context, e event.TypedCreateEvent[*metav1.PartialObjectMetadata], q queue) {
			// The informer's initial list arrives as creates, while every
			// ClusterClass is enqueued anyway; a CRD created later (a
			// provider installed) unblocks those waiting for it.
			users(ctx, q, e.Object)
		},
		UpdateFunc: func(ctx context.Context, e event.TypedUpdateEvent[*metav1.PartialObjectMetadata], q queue) {
			if !equality.Semantic.DeepEqual(e.ObjectOld.Labels, e.ObjectNew.Labels) {
				users(ctx, q, e.ObjectNew)
			}
		},
		DeleteFunc: func(ctx context.Context, e event.TypedDeleteEvent[*metav1.PartialObjectMetadata], q queue) {
			users(ctx, q, e.Object)
		},
	})
}
