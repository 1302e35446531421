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

package loadtest

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/benchfixture"
)

func TestStatusIsCurrent_ComparesTheConditionAndEveryVariableWithItsSource(t *testing.T) {
	f := &fixture{
		namespaces: map[string]map[string]string{"ns": {tierLabel: "a"}},
		configs: []*configFixture{
			{name: "open", variables: []string{"size"}},
			{name: "tier-b", variables: []string{"size"}, selector: tierSelector("b")},
		},
	}
	open := classFixture{namespace: "ns", name: "uses-open", configs: []int{0}}
	both := classFixture{namespace: "ns", name: "uses-both", configs: []int{0, 1}}
	status := func(ready metav1.ConditionStatus, vars ...clusterv1.ClusterClassStatusVariable) *clusterv1.ClusterClass {
		cc := &clusterv1.ClusterClass{}
		cc.Spec.Variables = []clusterv1.ClusterClassVariable{{Name: "inlined"}}
		cc.Status.Conditions = []metav1.Condition{{Type: clusterv1.ClusterClassVariablesReadyCondition, Status: ready}}
		cc.Status.Variables = vars
		return cc
	}
	variable := func(name string, from ...string) clusterv1.ClusterClassStatusVariable {
		v := clusterv1.ClusterClassStatusVariable{Name: name}
		for _, f := range from {
			v.Definitions = append(v.Definitions, clusterv1.ClusterClassStatusVariableDefinition{From: f})
		}
		return v
	}
	current := status(metav1.ConditionTrue, variable("inlined", clusterv1.VariableDefinitionFromInline), variable("size", benchfixture.PatchName("open")))
	for _, tc := range []struct {
		name  string
		class classFixture
		cc    *clusterv1.ClusterClass
		want  bool
	}{
		{"every variable from its source", open, current, true},
		{"a variable missing", open, status(metav1.ConditionTrue, variable("inlined", clusterv1.VariableDefinitionFromInline)), false},
		{"a variable from the wrong source", open, status(metav1.ConditionTrue, variable("inlined", clusterv1.VariableDefinitionFromInline), variable("size", "patch-other")), false},
		{"a variable too many", open, status(metav1.ConditionTrue, variable("inlined", clusterv1.VariableDefinitionFromInline), variable("size", benchfixture.PatchName("open")), variable("zone", benchfixture.PatchName("open"))), false},
		{"not ready although admitted", open, status(metav1.ConditionFalse), false},
		{"ready although a config does not admit the namespace", both, current, false},
		{"not ready where a config does not admit the namespace", both, status(metav1.ConditionFalse), true},
	} {
		if got := f.statusIsCurrent(tc.class, tc.cc); got != tc.want {
			t.Errorf("%s: current %v, want %v", tc.name, got, tc.want)
		}
	}
	f.configs[0].variables = []string{"size", "zone"}
	if f.statusIsCurrent(open, current) {
		t.Errorf("the extension answers a new variable: the old status must be stale")
	}
}

func TestSetRatios_DividesTheOtherControllersCountsByOursPerEvent(t *testing.T) {
	writes, otherWrites := 2, 3
	ours := &Result{Rows: []Row{{Event: "a", Reconciles: 4, Calls: 0, StatusWrites: &writes}}}
	other := &Result{Rows: []Row{{Event: "a", Reconciles: 10, Calls: 5, StatusWrites: &otherWrites}, {Event: "only theirs", Reconciles: 1}}}
	SetRatios(ours, other)
	r := other.Rows[0].RatiosToOurs
	if r == nil || r.Reconciles == nil || *r.Reconciles != 2.5 || r.StatusWrites == nil || *r.StatusWrites != 1.5 {
		t.Fatalf("ratios %+v, want reconciles 2.5 and status writes 1.5", r)
	}
	if r.Calls != nil || r.Requests != nil {
		t.Errorf("a count ours did not have got a ratio: %+v", r)
	}
	if other.Rows[1].RatiosToOurs != nil {
		t.Errorf("an event ours did not run got ratios")
	}
}
