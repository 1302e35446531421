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
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func object(kind, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetKind(kind)
	u.SetName(name)
	return u
}

// Two runs whose topology generated the same objects under other random
// names compare equal; the endpoint's port is left out.
func TestNormaliseSpecs_GeneratedNamesAndTheEndpointDoNotCount(t *testing.T) {
	run := func(suffix string, port int64) Specs {
		specs, err := NormaliseSpecs([]*unstructured.Unstructured{
			object("Cluster", "scale-00001", map[string]any{"controlPlaneEndpoint": map[string]any{"port": port}, "infrastructureRef": map[string]any{"name": "scale-00001-" + suffix}}),
			object("DevCluster", "scale-00001-"+suffix, map[string]any{"backend": "inMemory"}),
			object("MachineDeployment", "scale-00001-md-0-"+suffix, map[string]any{"template": map[string]any{"spec": map[string]any{"infrastructureRef": map[string]any{"name": "scale-00001-md-0-" + suffix[:4] + "z"}}}}),
			object("DevMachineTemplate", "scale-00001-md-0-"+suffix[:4]+"z", map[string]any{"template": "w"}),
		})
		if err != nil {
			t.Fatal(err)
		}
		return specs
	}
	a, b := run("bcdfg", 20000), run("x2456", 20001)
	if diffs := DiffSpecs(a, b); len(diffs) != 0 {
		t.Errorf("diffs %v, want none", diffs)
	}
	if _, ok := a["DevCluster scale-00001"]; !ok {
		t.Errorf("keys %v lack DevCluster scale-00001", a)
	}
}

func TestDiffSpecs_NamesMissingExtraAndDifferentObjects(t *testing.T) {
	want := Specs{"A a": "1", "B b": "2", "C c": "3"}
	got := Specs{"A a": "1", "B b": "20", "D d": "4"}
	diffs := DiffSpecs(want, got)
	joined := strings.Join(diffs, "\n")
	for _, s := range []string{"differs: B b", "missing: C c", "extra: D d"} {
		if !strings.Contains(joined, s) {
			t.Errorf("diffs %q lack %q", joined, s)
		}
	}
	if len(diffs) != 3 {
		t.Errorf("%d diffs, want 3", len(diffs))
	}
}

// Two objects of a kind whose names normalise alike are both kept.
func TestNormaliseSpecs_ClashingKeysKeepBothObjects(t *testing.T) {
	specs, err := NormaliseSpecs([]*unstructured.Unstructured{
		object("DevMachineTemplate", "scale-00001-bcdfg", map[string]any{"a": "1"}),
		object("DevMachineTemplate", "scale-00001-hjklm", map[string]any{"a": "2"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 2 {
		t.Errorf("%d specs, want 2: %v", len(specs), specs)
	}
}
