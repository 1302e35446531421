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

package clusterclass_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/contract"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/apiservertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/minimalclass"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
)

// waitRefVersions waits for RefVersionsUpToDate with status and reason.
func waitRefVersions(t *testing.T, namespace, name string, status metav1.ConditionStatus, reason string) *clusterv1.ClusterClass {
	t.Helper()
	env.Skip(t)
	cc := &clusterv1.ClusterClass{}
	polltest.Eventually(t, eventually, "RefVersionsUpToDate "+string(status)+" "+reason, func() (bool, string) {
		if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, cc); err != nil {
			return false, err.Error()
		}
		c := meta.FindStatusCondition(cc.Status.Conditions, clusterv1.ClusterClassRefVersionsUpToDateCondition)
		if c == nil {
			return false, "no condition"
		}
		return c.Status == status && c.Reason == reason, fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message)
	})
	return cc
}

func TestReconcile_OwnsItsTemplatesOnceEachWithoutLosingOtherOwners(t *testing.T) {
	startManager(t)
	ns := env.Namespace(t, nil)
	ctx := context.Background()
	// Several ClusterClasses sharing the namespace's templates, created at
	// once: none may drop another's ownerReference.
	names := []string{"a", "b", "c", "d", "e", "f"}
	for _, name := range names {
		create(t, apiservertest.ClusterClass(ns, name))
	}
	for _, name := range names {
		waitRefVersions(t, ns, name, metav1.ConditionTrue, clusterv1.ClusterClassRefVersionsUpToDateReason)
	}
	for _, template := range minimalclass.Templates(ns) {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(template.GroupVersionKind())
		polltest.Eventually(t, eventually, template.GetKind()+" owned by every ClusterClass", func() (bool, string) {
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(template), got); err != nil {
				return false, err.Error()
			}
			owners := map[string]bool{}
			for _, o := range got.GetOwnerReferences() {
				if o.Kind != "ClusterClass" || o.APIVersion != clusterv1.GroupVersion.String() || o.Controller != nil {
					return false, fmt.Sprintf("unexpected owner %+v", o)
				}
				owners[o.Name] = true
			}
			return len(owners) == len(names) && len(got.GetOwnerReferences()) == len(names), fmt.Sprintf("owners %v", owners)
		})
	}
}

// A template CRD's contract label decides RefVersionsUpToDate; changing it
// reaches the ClusterClass at once, with no ClusterClass event.
func TestReconcile_FollowsTheTemplateCRDsContractLabel(t *testing.T) {
	env.Skip(t)
	startManager(t)
	ctx := context.Background()
	kind := minimalclass.TemplateKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "ContractTestClusterTemplate", Versions: []string{"v1beta1", "v1beta2"}, Contract: "v1beta1"}
	crd := minimalclass.CRD(kind)
	if err := env.Client.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	polltest.Eventually(t, eventually, "CRD established", func() (bool, string) {
		got := &apiextensionsv1.CustomResourceDefinition{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(crd), got); err != nil {
			return false, err.Error()
		}
		for _, c := range got.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, ""
			}
		}
		return false, "not established"
	})
	ns := env.Namespace(t, nil)
	if err := env.Client.Create(ctx, minimalclass.Template(ns, kind, "legacy")); err != nil {
		t.Fatal(err)
	}
	cc := apiservertest.ClusterClass(ns, "cc")
	cc.Spec.Infrastructure.TemplateRef = kind.Ref("v1beta1", "legacy")
	create(t, cc)
	waitRefVersions(t, ns, "cc", metav1.ConditionTrue, clusterv1.ClusterClassRefVersionsUpToDateReason)

	// The provider now implements the contract in v1beta2 too.
	patch := client.MergeFrom(crd.DeepCopy())
	crd.Labels[contract.Label("v1beta2")] = "v1beta1_v1beta2"
	if err := env.Client.Patch(ctx, crd, patch); err != nil {
		t.Fatal(err)
	}
	got := waitRefVersions(t, ns, "cc", metav1.ConditionFalse, clusterv1.ClusterClassRefVersionsNotUpToDateReason)
	v1beta1 := meta.FindStatusCondition(got.Status.Conditions, clusterv1.ClusterClassRefVersionsUpToDateCondition)
	if want := "* ContractTestClusterTemplate legacy: current: v1beta1, latest: v1beta2"; v1beta1 == nil || !slices.Contains(strings.Split(v1beta1.Message, "\n"), want) {
		t.Errorf("message %q does not name the outdated reference (%q)", v1beta1.Message, want)
	}
	if d := got.Status.Deprecated; d == nil || d.V1Beta1 == nil || len(d.V1Beta1.Conditions) == 0 {
		t.Error("no v1beta1 conditions written")
	}
}

// A template that does not exist yet makes RefVersionsUpToDate Unknown and
// is retried until it appears; observedGeneration waits for it.
func TestReconcile_WaitsForAMissingTemplate(t *testing.T) {
	startManager(t)
	ctx := context.Background()
	ns := env.Namespace(t, nil)
	cc := apiservertest.ClusterClass(ns, "cc")
	cc.Spec.ControlPlane.TemplateRef.Name = "later"
	create(t, cc)
	got := waitRefVersions(t, ns, "cc", metav1.ConditionUnknown, clusterv1.ClusterClassRefVersionsUpToDateInternalErrorReason)
	if got.Status.ObservedGeneration == got.Generation {
		t.Error("observedGeneration advanced while a template is missing")
	}
	if err := env.Client.Create(ctx, minimalclass.Template(ns, minimalclass.ControlPlane, "later")); err != nil {
		t.Fatal(err)
	}
	waitRefVersions(t, ns, "cc", metav1.ConditionTrue, clusterv1.ClusterClassRefVersionsUpToDateReason)
}
