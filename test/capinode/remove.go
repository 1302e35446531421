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

package capinode

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
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
// clusterctl or the operator left: first the given namespaces (the flow's,
// while the controllers still run to finish what is in them), then the
// components' namespaces, the operator's too, then their cluster-scoped
// objects (CRDs among them), waiting each time until they are gone.
// cert-manager's CRDs stay.
func Remove(ctx context.Context, c client.Client, first ...string) error {
	// Each step is tried even when one before it failed, so that one stuck
	// object leaves as little as it can behind; every failure is returned.
	var errs []error
	errs = append(errs, DeleteNamespaces(ctx, c, first...))
	// Every object of the components' CRDs next, while their controllers
	// still run to remove their finalizers: objects of a CRD deleted after
	// them were left in storage here, and the next install's CRD of the
	// same name served them again (clusterctl init found its inventory and
	// installed nothing; the flow found its ExtensionConfig).
	errs = append(errs, deleteInstances(ctx, c))
	errs = append(errs, DeleteNamespaces(ctx, c, componentNamespaces()...))
	errs = append(errs, eachOwn(ctx, c, func(u *unstructured.Unstructured, sel labels.Selector) error {
		err := c.DeleteAllOf(ctx, u, client.MatchingLabelsSelector{Selector: sel})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete every %s of the components: %w", u.GetKind(), err)
		}
		return nil
	}))
	// A CRD still terminating is there for the next install to find.
	errs = append(errs, polltest.WithinContext(ctx, namespaceGone, "every cluster-scoped object of the components gone", func() (bool, string) {
		left, err := clusterScopedLeft(ctx, c)
		if err != nil {
			return false, err.Error()
		}
		return len(left) == 0, strings.Join(left, ", ")
	}))
	return errors.Join(errs...)
}

// deleteInstances deletes every object of every CRD of the components and
// waits until none is left.
func deleteInstances(ctx context.Context, c client.Client) error {
	var kinds []schema.GroupVersionKind
	err := eachOwn(ctx, c, func(u *unstructured.Unstructured, sel labels.Selector) error {
		if u.GetKind() != "CustomResourceDefinition" {
			return nil
		}
		crds := &unstructured.UnstructuredList{}
		crds.SetGroupVersionKind(u.GroupVersionKind().GroupVersion().WithKind("CustomResourceDefinitionList"))
		if err := c.List(ctx, crds, client.MatchingLabelsSelector{Selector: sel}); err != nil {
			return err
		}
		for _, item := range crds.Items {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(item.Object, crd); err != nil {
				return err
			}
			for _, v := range crd.Spec.Versions {
				if v.Storage {
					kinds = append(kinds, schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.ListKind})
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	instances := func() ([]unstructured.Unstructured, error) {
		var all []unstructured.Unstructured
		for _, gvk := range kinds {
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(gvk)
			if err := c.List(ctx, list); err != nil && !apierrors.IsNotFound(err) && !meta.IsNoMatchError(err) {
				return nil, fmt.Errorf("list %s: %w", gvk.Kind, err)
			}
			all = append(all, list.Items...)
		}
		return all, nil
	}
	all, err := instances()
	if err != nil {
		return err
	}
	for i := range all {
		if err := c.Delete(ctx, &all[i]); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete %s %s/%s: %w", all[i].GetKind(), all[i].GetNamespace(), all[i].GetName(), err)
		}
	}
	return polltest.WithinContext(ctx, namespaceGone, "every object of the components' CRDs gone", func() (bool, string) {
		left, err := instances()
		if err != nil {
			return false, err.Error()
		}
		var names []string
		for _, u := range left {
			names = append(names, u.GetKind()+" "+u.GetNamespace()+"/"+u.GetName())
		}
		return len(left) == 0, strings.Join(names, ", ")
	})
}

// Leftovers names what an install left on the cluster: the components'
// namespaces and the flow's (given), and their cluster-scoped objects.
func Leftovers(ctx context.Context, c client.Client, namespaces ...string) ([]string, error) {
	namespaces = append(namespaces, componentNamespaces()...)
	var left []string
	for _, name := range namespaces {
		ns := &unstructured.Unstructured{}
		ns.SetAPIVersion("v1")
		ns.SetKind("Namespace")
		err := c.Get(ctx, client.ObjectKey{Name: name}, ns)
		if err == nil {
			left = append(left, "Namespace "+name)
		} else if !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	scoped, err := clusterScopedLeft(ctx, c)
	return append(left, scoped...), err
}

// componentNamespaces are the namespaces of every component and the
// operator's.
func componentNamespaces() []string {
	var namespaces []string
	for _, comp := range append([]Component{Operator}, Components...) {
		namespaces = append(namespaces, comp.Namespace)
	}
	return namespaces
}

// clusterScopedLeft names the components' cluster-scoped objects there.
func clusterScopedLeft(ctx context.Context, c client.Client) ([]string, error) {
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
	return left, err
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

// DeleteNamespaces deletes the namespaces and waits until they are gone:
// the flow's first, while every controller still runs to remove the
// finalizers of what is in it.
func DeleteNamespaces(ctx context.Context, c client.Client, names ...string) error {
	for _, name := range names {
		ns := &unstructured.Unstructured{}
		ns.SetAPIVersion("v1")
		ns.SetKind("Namespace")
		ns.SetName(name)
		if err := c.Delete(ctx, ns); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return polltest.WithinContext(ctx, namespaceGone, "namespaces "+strings.Join(names, ", ")+" gone", func() (bool, string) {
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
