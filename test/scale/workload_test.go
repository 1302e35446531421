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

package scale

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestClusterName_PadsAsClusterAPIsScaleE2E(t *testing.T) {
	for _, tt := range []struct {
		i, n int
		want string
	}{{1, 10, "scale-00001"}, {10, 10, "scale-00010"}, {7, 123456, "scale-000007"}} {
		if got := ClusterName(tt.i, tt.n); got != tt.want {
			t.Errorf("ClusterName(%d, %d) = %q, want %q", tt.i, tt.n, got, tt.want)
		}
	}
}

func class() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"kind":     "ClusterClass",
		"metadata": map[string]any{"name": "in-memory"},
		"spec": map[string]any{"patches": []any{
			map[string]any{"name": "test-patch", "external": map[string]any{"generatePatchesExtension": "generate-patches.scale"}},
		}},
	}}
}

func TestAddValidateTopology_SetsTheHandlerOnTheExternalPatch(t *testing.T) {
	c := class()
	if err := AddValidateTopology(c, "validate-topology.scale"); err != nil {
		t.Fatal(err)
	}
	patches, _, _ := unstructured.NestedSlice(c.Object, "spec", "patches")
	if got := patches[0].(map[string]any)["external"].(map[string]any)["validateTopologyExtension"]; got != "validate-topology.scale" {
		t.Errorf("validateTopologyExtension = %v", got)
	}
	if err := AddValidateTopology(c, "validate-topology.scale"); err == nil {
		t.Error("a second AddValidateTopology found a patch to set; want an error, as there is none left")
	}
}

func TestClassCopies_RenamesClassesAndTemplatesAndPutsClassesLast(t *testing.T) {
	template := &unstructured.Unstructured{Object: map[string]any{"kind": "DevClusterTemplate", "metadata": map[string]any{"name": "in-memory-cluster"}}}
	c := class()
	if err := unstructured.SetNestedField(c.Object, "in-memory-cluster", "spec", "infrastructure", "templateRef", "name"); err != nil {
		t.Fatal(err)
	}
	out, err := ClassCopies([]*unstructured.Unstructured{c, template}, "in-memory", 2)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range out {
		names = append(names, u.GetKind()+" "+u.GetName())
	}
	want := []string{"DevClusterTemplate in-memory-cluster", "DevClusterTemplate in-memory-1-cluster", "DevClusterTemplate in-memory-2-cluster",
		"ClusterClass in-memory", "ClusterClass in-memory-1", "ClusterClass in-memory-2"}
	if len(names) != len(want) {
		t.Fatalf("objects %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("object %d is %s, want %s", i, names[i], want[i])
		}
	}
	if ref, _, _ := unstructured.NestedString(out[5].Object, "spec", "infrastructure", "templateRef", "name"); ref != "in-memory-2-cluster" {
		t.Errorf("the second copy references %q, want its own template in-memory-2-cluster", ref)
	}
}
