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

package scanmapping

import (
	"context"
	"os"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/apiservertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/minimalclass"
)

var env *apiservertest.Env

func TestMain(m *testing.M) { os.Exit(apiservertest.Run(m, &env)) }

// The baseline maps as Cluster API's ClusterClass controller does
// (core/reconcilers/clusterclass, extensionConfigToClusterClass): it parses
// the selector with metav1.LabelSelectorAsSelector, which makes a nil one
// labels.Nothing(), and tests each ClusterClass's Namespace with it. A
// config stored without Cluster API's defaulting webhook, with no
// namespaceSelector, so reaches no ClusterClass; the empty one reaches all.
func TestMap_ANilSelectorReachesNoClusterClassAsInClusterAPI(t *testing.T) {
	if s, err := metav1.LabelSelectorAsSelector(nil); err != nil || s.Matches(labels.Set{}) || s.Empty() {
		t.Fatalf("Cluster API's reading of a nil selector changed: %v (%v)", s, err)
	}
	ctx := context.Background()
	gold := env.Namespace(t, map[string]string{"tier": "gold"})
	plain := env.Namespace(t, nil)
	for _, ns := range []string{gold, plain} {
		cc := minimalclass.ClusterClass(ns, "uses-x", clusterv1.ClusterClassPatch{
			Name: "p", External: &clusterv1.ExternalPatchDefinition{DiscoverVariablesExtension: "discover-variables.x"},
		})
		if err := minimalclass.CreateWithOwnTemplates(ctx, env.Client, cc); err != nil {
			t.Fatal(err)
		}
	}
	mapped := func(selector *metav1.LabelSelector) []string {
		t.Helper()
		requests, err := Map(ctx, env.Client, &runtimev1.ExtensionConfig{
			ObjectMeta: metav1.ObjectMeta{Name: "x"},
			Spec:       runtimev1.ExtensionConfigSpec{NamespaceSelector: selector},
		})
		if err != nil {
			t.Fatal(err)
		}
		var namespaces []string
		for _, r := range requests {
			if r.Namespace == gold || r.Namespace == plain {
				namespaces = append(namespaces, r.Namespace)
			}
		}
		slices.Sort(namespaces)
		return namespaces
	}
	want := []string{gold, plain}
	slices.Sort(want)
	if got := mapped(nil); len(got) != 0 {
		t.Errorf("a nil selector mapped to %v, want none", got)
	}
	if got := mapped(&metav1.LabelSelector{}); !slices.Equal(got, want) {
		t.Errorf("the empty selector mapped to %v, want %v", got, want)
	}
	if got := mapped(&metav1.LabelSelector{MatchLabels: map[string]string{"tier": "gold"}}); !slices.Equal(got, []string{gold}) {
		t.Errorf("tier=gold mapped to %v, want [%s]", got, gold)
	}
}
