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
	"strings"
	"testing"
)

func TestCounts_GivesEachOtherCountAsAMultipleOfOurs(t *testing.T) {
	for _, tc := range []struct {
		values []int64
		want   string
	}{
		{[]int64{5, 5}, "5 / 5"},
		{[]int64{5, 5, 5}, "5 / 5 / 5"},
		{[]int64{10, 25}, "10 / 25 (x2.5)"},
		{[]int64{10, 25, 10}, "10 / 25 / 10 (x2.5, =)"},
		{[]int64{0, 3, 0}, "0 / 3 / 0 (ours none, =)"},
		{[]int64{4, 0, 8}, "4 / 0 / 8 (none, x2.0)"},
	} {
		if got := counts(tc.values[0], tc.values[1:]...); got != tc.want {
			t.Errorf("counts(%v) = %q, want %q", tc.values, got, tc.want)
		}
	}
}

// A three-way comparison puts each manager's count in every column, in
// --compare's order, and leaves out an event one of them did not measure.
func TestWriteComparison_ThreeManagersSideBySide(t *testing.T) {
	ptr := func(v int) *int { return &v }
	scenario := Scenario{Name: "scale-200", ClusterClasses: 200, ExtensionConfigs: 50, Namespaces: 20, SelectorShare: 0.2}
	ours := &Result{Controller: NameDropIn, Scenario: scenario, Rows: []Row{
		{Event: "settings change", Reconciles: 4, OptimumReconciles: 4, Calls: 4, OptimumCalls: 4, StatusWrites: ptr(4), Requests: ptr(9)},
		{Event: "namespace flip", Reconciles: 2, OptimumReconciles: 2},
	}}
	capi := &Result{Controller: NameCAPI, Scenario: scenario, Rows: []Row{
		{Event: "settings change", Reconciles: 40, Calls: 4, StatusWrites: ptr(4), Requests: ptr(90)},
		{Event: "namespace flip", Reconciles: 0},
	}}
	patched := &Result{Controller: NamePatched, Scenario: scenario, Rows: []Row{
		{Event: "settings change", Reconciles: 4, Calls: 4, StatusWrites: ptr(4), Requests: ptr(9)},
	}}
	var b strings.Builder
	if err := WriteComparison(&b, ours, capi, patched); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"core-manager against " + NameCAPI + " against " + NamePatched,
		"reconciles ours/capi/patched (optimum)",
		"4 / 40 / 4 (x10.0, =) (4)",
		"9 / 90 / 9 (x10.0, =)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("comparison lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "namespace flip") {
		t.Errorf("comparison has a row the patched manager did not measure:\n%s", out)
	}
}
