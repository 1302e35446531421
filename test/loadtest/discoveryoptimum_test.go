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
