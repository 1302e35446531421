package capinode

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
)

// clusterScoped are the kinds of cluster-scoped objects in the components
// files.
var clusterScoped = []schema.GroupVersionKind{
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration"},
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingWebhookConfiguration"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"},
	{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"},
}

// ownLabels select every object of Cluster API's components files (their
// kustomizations label each with its provider), of the operator's and of
// clusterctl's inventory (its Provider CRD).
var ownLabels = []string{"cluster.x-k8s.io/provider", "clusterctl.cluster.x-k8s.io/core"}

// Remove deletes, for the next install on the same node, what Install,
// clusterctl or the operator left: first the given namespaces (the flow's, while the
// controllers still run to finish what is in them), then the components'
// cluster-scoped objects (CRDs among them, with every object of theirs)
// and their namespaces, the operator's too, and waits until the
// namespaces are gone. cert-manager's CRDs stay.
func Remove(ctx context.Context, c client.Client, first ...string) error {
	if err := deleteNamespaces(ctx, c, first); err != nil {
		return err
	}
	if err := eachOwn(ctx, c, func(u *unstructured.Unstructured, sel labels.Selector) error {
		err := c.DeleteAllOf(ctx, u, client.MatchingLabelsSelector{Selector: sel})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete every %s of the components: %w", u.GetKind(), err)
		}
		return nil
	}); err != nil {
		return err
	}
	var namespaces []string
	for _, comp := range append([]Component{Operator}, Components...) {
		namespaces = append(namespaces, comp.Namespace)
	}
	if err := deleteNamespaces(ctx, c, namespaces); err != nil {
		return err
	}
	// A CRD still terminating is there for the next install to find: it
	// would be taken for installed (clusterctl init, seeing its inventory,
	// installs nothing) and then vanish.
	return polltest.Within(namespaceGone, "every cluster-scoped object of the components gone", func() (bool, string) {
		var left []string
		err := eachOwn(ctx, c, func(u *unstructured.Unstructured, sel labels.Selector) error {
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(u.GroupVersionKind())
			if err := c.List(ctx, list, client.MatchingLabelsSelector{Selector: sel}); err != nil {
				return err
			}
			for _, item := range list.Items {
				left = append(left, item.GetKind()+" "+item.GetName())
			}
			return nil
		})
		if err != nil {
			return false, err.Error()
		}
		return len(left) == 0, strings.Join(left, ", ")
	})
}

// eachOwn calls fn for every cluster-scoped kind and selector of the
// components' objects, with an empty object of that kind.
func eachOwn(ctx context.Context, c client.Client, fn func(*unstructured.Unstructured, labels.Selector) error) error {
	for _, gvk := range clusterScoped {
		for _, selector := range ownLabels {
			sel, err := labels.Parse(selector)
			if err != nil {
				return err
			}
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(gvk)
			if err := fn(u, sel); err != nil {
				return err
			}
		}
	}
	return nil
}

// namespaceGone bounds the wait for a namespace's deletion.
const namespaceGone = 4 * time.Minute

func deleteNamespaces(ctx context.Context, c client.Client, names []string) error {
	for _, name := range names {
		ns := &unstructured.Unstructured{}
		ns.SetAPIVersion("v1")
		ns.SetKind("Namespace")
		ns.SetName(name)
		if err := c.Delete(ctx, ns); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return polltest.Within(namespaceGone, "namespaces "+strings.Join(names, ", ")+" gone", func() (bool, string) {
		var left []string
		for _, name := range names {
			ns := &unstructured.Unstructured{}
			ns.SetAPIVersion("v1")
			ns.SetKind("Namespace")
			if err := c.Get(ctx, client.ObjectKey{Name: name}, ns); !apierrors.IsNotFound(err) {
				left = append(left, name)
			}
		}
		return len(left) == 0, strings.Join(left, ", ")
	})
}
