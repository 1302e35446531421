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
)

// Every event states its Discovery cost: Cluster API's for what a user
// did, which the drop-in keeps.
func TestEvents_OptimumDiscoveryIsClusterAPIs(t *testing.T) {
	f, err := newFixture(SeedScenario(), "optimum")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.stop)
	r := &run{fixture: f, controller: &process{name: NameDropIn}}
	configs := len(f.configs)
	want := map[string]int{
		"update of every ExtensionConfig (annotation only)": configs,
		"status-only write":                                           1,
		"one handler's timeout changes":                               1,
		"namespaceSelector changes":                                   1,
		"Namespace label flips":                                       0,
		"extension answers new variables after a registration change": 1,
		"idle, 10 minutes at default periods":                         configs,
	}
	events := append(r.events(), r.idleEvent(DefaultPeriod))
	if len(events) != len(want) {
		t.Errorf("%d events, want %d", len(events), len(want))
	}
	for _, e := range events {
		w, ok := want[e.name]
		if !ok {
			t.Errorf("event %q has no expected cost", e.name)
			continue
		}
		got := 0
		if e.optimumDiscovery != nil {
			got = e.optimumDiscovery()
		}
		if got != w {
			t.Errorf("%s: optimum %d Discovery calls, want %d", e.name, got, w)
		}
	}
}
