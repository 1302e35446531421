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

package differential

import (
	"regexp"
	"testing"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

func TestCompare_SortsDifferencesIntoUnexplainedAllowedAndWording(t *testing.T) {
	baseline := Snapshot{
		"CC .status.conditions (order)":                 "RefVersionsUpToDate,VariablesReady,Paused",
		"CC .status.conditions[VariablesReady].reason":  "VariableDiscoveryFailed",
		"CC .status.conditions[VariablesReady].message": "theirs",
		"T .metadata.ownerReferences":                   `["a"]`,
		"U .metadata.ownerReferences":                   `["a","b"]`,
		"CC .status.observedGeneration":                 "current",
	}
	ours := Snapshot{
		"CC .status.conditions (order)":                    "ExtensionsResolved,RefVersionsUpToDate,VariablesReady,Paused",
		"CC .status.conditions[ExtensionsResolved].reason": userfacing.ExtensionsResolvedReason,
		"CC .status.conditions[VariablesReady].reason":     "VariableDiscoveryFailed",
		"CC .status.conditions[VariablesReady].message":    "ours",
		"T .metadata.ownerReferences":                      `["a","b"]`,
		"U .metadata.ownerReferences":                      `["a"]`,
	}
	allow := []Allowance{
		{OursOnlyCondition: userfacing.ExtensionsResolvedCondition, Reason: "ours only"},
		{Path: regexp.MustCompile(`ownerReferences$`), Holds: Superset, Reason: "lost updates"},
	}
	c := Compare(baseline, ours, allow)
	paths := func(ds []Difference) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Path)
		}
		return out
	}
	if got := paths(c.Unexplained); len(got) != 2 || got[0] != "CC .status.observedGeneration" || got[1] != "U .metadata.ownerReferences" {
		t.Errorf("unexplained = %v, want observedGeneration absent on our side and U missing an owner", got)
	}
	if c.Unexplained[0].Ours != absent {
		t.Errorf("a field we did not write reads %q, want %q", c.Unexplained[0].Ours, absent)
	}
	if got := paths(c.Allowed); len(got) != 1 || got[0] != "T .metadata.ownerReferences" || c.Allowed[0].Reason != "lost updates" {
		t.Errorf("allowed = %+v", c.Allowed)
	}
	if got := paths(c.Messages); len(got) != 1 || got[0] != "CC .status.conditions[VariablesReady].message" {
		t.Errorf("messages = %v", got)
	}
}

func TestSameEntries_HoldsForTheSameListInAnyOrderOnly(t *testing.T) {
	for _, tc := range []struct {
		baseline, ours string
		want           bool
	}{
		{`[{"name":"a"},{"name":"b"}]`, `[{"name":"b"}, {"name":"a"}]`, true},
		{`[{"name":"a"},{"name":"b"}]`, `[{"name":"a"},{"name":"b"}]`, true},
		{`[{"name":"a"},{"name":"b"}]`, `[{"name":"a"}]`, false},
		{`[{"name":"a"},{"name":"a"}]`, `[{"name":"a"},{"name":"b"}]`, false},
		{`[{"name":"a","timeoutSeconds":10}]`, `[{"name":"a","timeoutSeconds":30}]`, false},
		{`null`, `[]`, true},
		{`not json`, `[]`, false},
	} {
		if got := SameEntries(tc.baseline, tc.ours); got != tc.want {
			t.Errorf("SameEntries(%s, %s) = %v, want %v", tc.baseline, tc.ours, got, tc.want)
		}
	}
}
