package loadtest

import (
	"strings"
	"testing"
)

// Every event states its Discovery cost under both optima: the standalone
// discovers only when the answer can change, the drop-in whenever Cluster
// API does for what a user did.
func TestEvents_OptimumDiscoveryFollowsTheOptimum(t *testing.T) {
	f, err := newFixture(SeedScenario(), "optimum")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.stop)
	r := &run{fixture: f, controller: &inProcess{}}
	configs := len(f.configs)
	want := map[string]discoveryCost{
		"update of every ExtensionConfig (annotation only)": {whenAnswerCanChange: 0, onEveryChange: configs},
		"status-only write":                                                   {whenAnswerCanChange: 0, onEveryChange: 1},
		"one handler's timeout changes":                                       {whenAnswerCanChange: 1, onEveryChange: 1},
		"namespaceSelector changes":                                           {whenAnswerCanChange: 0, onEveryChange: 1},
		"Namespace label flips":                                               {},
		"extension answers new variables after a registration change":         {whenAnswerCanChange: 0, onEveryChange: 1},
		"idle, 10 minutes at default periods":                                 {whenAnswerCanChange: configs, onEveryChange: configs},
		"idle for one max age (answers in use asked again)":                   {},
		"extension rollout (new DiscoverVariables answer, same registration)": {},
	}
	events := append(append(r.events(), r.idleEvent(DefaultPeriod)), r.rolloutEvents()...)
	if len(events) != len(want) {
		t.Errorf("%d events, want %d", len(events), len(want))
	}
	for _, e := range events {
		w, ok := want[e.name]
		if !ok {
			t.Errorf("event %q has no expected cost", e.name)
			continue
		}
		var got discoveryCost
		if e.optimumDiscovery != nil {
			got = e.optimumDiscovery()
		}
		for _, o := range []DiscoveryOptimum{DiscoverWhenAnswerCanChange, DiscoverOnEveryChange} {
			if got.under(o) != w.under(o) {
				t.Errorf("%s under %s: optimum %d Discovery calls, want %d", e.name, o, got.under(o), w.under(o))
			}
		}
	}
}

func TestDiscoveryOptimum_UnsetIsClusterAPIsAndEachDescribesItself(t *testing.T) {
	cost := discoveryCost{whenAnswerCanChange: 2, onEveryChange: 5}
	tests := []struct {
		optimum  DiscoveryOptimum
		want     int
		describe string
	}{
		{"", 5, "Cluster API's for what users do"},
		{DiscoverWhenAnswerCanChange, 2, "standalone"},
		{DiscoverOnEveryChange, 5, "Cluster API's for what users do"},
	}
	for _, tt := range tests {
		if got := cost.under(tt.optimum); got != tt.want {
			t.Errorf("under(%q) = %d, want %d", tt.optimum, got, tt.want)
		}
		if err := tt.optimum.Validate(); err != nil {
			t.Errorf("Validate(%q): %v", tt.optimum, err)
		}
		if d := tt.optimum.Describe(); !strings.Contains(d, tt.describe) {
			t.Errorf("Describe(%q) = %q, want it to name %q", tt.optimum, d, tt.describe)
		}
	}
	if err := DiscoveryOptimum("always").Validate(); err == nil {
		t.Error("an unknown optimum passed Validate")
	}
}
