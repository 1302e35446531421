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
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRatio_IsClusterAPIOverOurs(t *testing.T) {
	for _, tt := range []struct {
		capi, ours float64
		want       string
	}{{10, 5, "2.00×"}, {5, 10, "0.50×"}, {250, 5, "50×"}, {0, 0, "="}, {3, 0, "—"}} {
		if got := Ratio(tt.capi, tt.ours); got != tt.want {
			t.Errorf("Ratio(%v, %v) = %q, want %q", tt.capi, tt.ours, got, tt.want)
		}
	}
}

func TestRepeatShareAndHitShare(t *testing.T) {
	if got := RepeatShare(100, 25); got != "75%" {
		t.Errorf("RepeatShare(100, 25) = %q", got)
	}
	if got := RepeatShare(0, 0); got != "—" {
		t.Errorf("RepeatShare(0, 0) = %q", got)
	}
	if got := HitShare(3, 1); got != "75%" {
		t.Errorf("HitShare(3, 1) = %q", got)
	}
	if got := HitShare(0, 0); got != "—" {
		t.Errorf("HitShare(0, 0) = %q", got)
	}
}

func results() []*RunResult {
	ev := func(name string, gp, vt float64, hits float64) EventResult {
		return EventResult{Name: name, ToQuiet: 90 * time.Second, ToDone: 80 * time.Second, Counters: Counters{
			Requests:     map[string]float64{"generatepatches": gp, "validatetopology": vt, "beforeclustercreate": 2},
			Reconciles:   map[string]float64{"topology/cluster": 2 * gp},
			CacheLookups: map[string]float64{"GeneratePatches/hit": hits, "GeneratePatches/miss": gp},
			APIRequests:  100, APIWrites: 10, CPUSeconds: 1.25, PeakRSSBytes: 64 << 20,
		}}
	}
	return []*RunResult{
		{Variant: DropIn.Name, Events: []EventResult{ev(EventCreate, 60, 60, 0), ev(EventIdle, 10, 10, 0)}},
		{Variant: ClusterAPI.Name, Events: []EventResult{ev(EventCreate, 120, 120, 0), ev(EventIdle, 10, 10, 0)}},
		{Variant: DropInCache.Name, Events: []EventResult{ev(EventCreate, 15, 60, 45), ev(EventIdle, 0, 10, 10)}},
	}
}

func TestEventTable_PutsTheVariantsSideBySideWithTheRatio(t *testing.T) {
	table := EventTable(EventCreate, results())
	if got := strings.Join(table.Header, "|"); got != "create all|drop-in|Cluster API|Cluster API ÷ ours|drop-in + cache" {
		t.Errorf("header %q", got)
	}
	rows := map[string][]string{}
	for _, r := range table.Rows {
		rows[r[0]] = r
	}
	for label, want := range map[string]string{
		"wall time to quiet":                 "1m30s|1m30s|1.00×|1m30s",
		"wall time to all Available":         "1m20s|1m20s|1.00×|1m20s",
		"requests: generatepatches":          "60|120|2.00×|15",
		"requests: beforeclustercreate":      "2|2|1.00×|2",
		"reconciles: topology/cluster":       "120|240|2.00×|30",
		"reconciles: clusterclass":           "0|0|=|0",
		"CPU seconds (core manager)":         "1.2|1.2|1.00×|1.2",
		"peak RSS MiB (core manager, VmHWM)": "64|64|1.00×|64",
	} {
		if got := strings.Join(rows[label][1:], "|"); got != want {
			t.Errorf("row %q = %q, want %q", label, got, want)
		}
	}
	// Topology hooks first, then lifecycle hooks.
	var hooks []string
	for _, r := range table.Rows {
		if h, ok := strings.CutPrefix(r[0], "requests: "); ok {
			hooks = append(hooks, h)
		}
	}
	if got := strings.Join(hooks, ","); got != "generatepatches,validatetopology,beforeclustercreate" {
		t.Errorf("hooks in order %q", got)
	}
}

func TestEventTable_AVariantWithoutTheEventShowsNotApplicable(t *testing.T) {
	rs := results()
	rs[1].Events = rs[1].Events[:1]
	table := EventTable(EventIdle, rs)
	if got := strings.Join(table.Rows[0][1:], "|"); got != "1m30s|n/a|n/a|1m30s" {
		t.Errorf("first row %q", got)
	}
}

func TestEventTable_AnEventNotDoneShowsItsCountsWithoutARatio(t *testing.T) {
	rs := results()
	create := &rs[2].Events[0]
	create.NotDone, create.NotQuiet, create.ToQuiet, create.ToDone = true, true, time.Hour, 0
	rows := map[string][]string{}
	for _, r := range EventTable(EventCreate, rs).Rows {
		rows[r[0]] = r
	}
	for label, want := range map[string]string{
		"wall time to quiet":         "1m30s|1m30s|1.00×|not done after 1h0m0s",
		"wall time to all Available": "1m20s|1m20s|1.00×|not done after 1h0m0s",
		"requests: generatepatches":  "60|120|2.00×|15 (not done)",
	} {
		if got := strings.Join(rows[label][1:], "|"); got != want {
			t.Errorf("row %q = %q, want %q", label, got, want)
		}
	}
	// In the drop-in's column, the ratio would compare a change not made.
	rs = results()
	rs[0].Events[0].NotDone = true
	for _, r := range EventTable(EventCreate, rs).Rows {
		if r[0] == "requests: generatepatches" && r[3] != "n/a" {
			t.Errorf("ratio against an event not done = %q, want n/a", r[3])
		}
	}
	if total := TotalOf(rs[0]).Event("total"); !total.NotDone {
		t.Errorf("a run's total with an event not done is not marked: %+v", total)
	}

	// The whole-run tables mark it and compare it with nothing either.
	expectLines(t, wholeRunTables(rs),
		"| create all | GeneratePatches | 60 (not done) | 15 | 120 | n/a |",
		"| total | GeneratePatches | 70 (not done) | 15 | 130 | n/a |",
		"| idle one sync period | GeneratePatches | 10 | 0 | 10 | 100% |",
		"| beforeclustercreate | 4 (not done) | 4 | n/a | 4 |")

	// A run that failed before it measured anything is not a run of
	// zeros, and the cache's share of an unfinished run is marked.
	rs = results()
	rs[1].Events = nil
	rs[2].Events[0].NotDone = true
	expectLines(t, wholeRunTables(rs),
		"| total | GeneratePatches | 70 | 15 (not done) | n/a | n/a | 79% (not done) |",
		"| beforeclustercreate | 4 | n/a | n/a | 4 (not done) |")
	if got := TotalOf(rs[1]).Event("total"); got != nil {
		t.Errorf("a run with no event has a total %+v", got)
	}
}

// wholeRunTables is the cache and the lifecycle table of rs, as written.
func wholeRunTables(rs []*RunResult) string {
	var buf bytes.Buffer
	CacheTable(rs).Write(&buf)
	LifecycleTable(rs).Write(&buf)
	return buf.String()
}

// expectLines fails t for each of want that the tables lack.
func expectLines(t *testing.T, tables string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(tables, w) {
			t.Errorf("tables lack %q:\n%s", w, tables)
		}
	}
}

func TestCacheTable_ReportsRepeatsFromRequestsAndFromLookups(t *testing.T) {
	expectLines(t, wholeRunTables(results()),
		"| create all | GeneratePatches | 60 | 15 | 120 | 75% | 75% |",
		"| idle one sync period | GeneratePatches | 10 | 0 | 10 | 100% | 100% |",
		"| total | GeneratePatches | 70 | 15 | 130 | 79% | 79% |",
		"| create all | ValidateTopology | 60 | 60 | 120 | 0% | — |")
}

func TestTotalOf_AddsEventsAndKeepsThePeak(t *testing.T) {
	r := &RunResult{Variant: "x", Events: []EventResult{
		{Name: "a", ToQuiet: time.Second, Counters: Counters{Requests: map[string]float64{"h": 1}, APIWrites: 2, PeakRSSBytes: 5}},
		{Name: "b", ToQuiet: 2 * time.Second, NotQuiet: true, Counters: Counters{Requests: map[string]float64{"h": 3}, APIWrites: 4, PeakRSSBytes: 3}},
	}}
	total := TotalOf(r).Event("total")
	if total.ToQuiet != 3*time.Second || total.Requests["h"] != 4 || total.APIWrites != 6 || total.PeakRSSBytes != 5 || !total.NotQuiet {
		t.Errorf("total %+v", total)
	}
}

func TestReportWrite_StatesValidateTopologyAndClusterAPIsDefaults(t *testing.T) {
	var buf bytes.Buffer
	(&Report{Command: "rsc-bench scale --clusters 2", Options: Options{Clusters: 2, Concurrency: 5, AdditionalClasses: 4, SyncPeriod: time.Minute},
		Results: results(), Workload: &Workload{ValidateTopologyHandler: "validate-topology.scale", FromVersion: "v1", ToVersion: "v2"}}).Write(&buf)
	for _, want := range []string{"validateTopologyExtension: validate-topology.scale", "ReconcilerRateLimiting", "PriorityQueue",
		"`rsc-bench scale --clusters 2`", "## Lifecycle hooks", "## GeneratePatches and ValidateTopology with the response cache"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestReportMissing_NamesTheRunsNotMadeStoppedOrOfAnotherShape(t *testing.T) {
	o := Options{Clusters: 200, Latencies: []time.Duration{250 * time.Millisecond, 0}}
	made := func(variant string, latency time.Duration) *RunResult {
		return &RunResult{Variant: variant, Latency: latency, Clusters: o.Clusters, Settings: o.settings(latency)}
	}
	stopped := made("Cluster API", 250*time.Millisecond)
	stopped.Err = "context canceled"
	otherShape := made("drop-in", 0)
	otherShape.Clusters = 50
	r := &Report{Options: o, Variants: []string{"drop-in", "Cluster API"},
		Results: []*RunResult{made("drop-in", 250*time.Millisecond), stopped, otherShape}}
	want := []string{"Cluster API at 250 ms (stopped before its end)", "drop-in at 0 ms (made with another shape)", "Cluster API at 0 ms"}
	if got := r.Missing(); !slices.Equal(got, want) {
		t.Errorf("Missing() = %v, want %v", got, want)
	}
	r.Results = []*RunResult{made("drop-in", 250*time.Millisecond), made("Cluster API", 250*time.Millisecond), made("drop-in", 0), made("Cluster API", 0)}
	if got := r.Missing(); len(got) != 0 {
		t.Errorf("a complete report misses %v", got)
	}
}

func TestReportWrite_SaysWhatEachRunTookAndWhatIsNotRunYet(t *testing.T) {
	start := time.Date(2026, 12, 6, 21, 0, 0, 0, time.UTC)
	r := &Report{MadeBy: "make scale-n200", Options: Options{Clusters: 2, Latencies: []time.Duration{250 * time.Millisecond}},
		Variants: []string{"drop-in", "Cluster API"},
		Results: []*RunResult{
			{Variant: "drop-in", Latency: 250 * time.Millisecond, Clusters: 2, Started: start, Finished: start.Add(55 * time.Minute)},
			{Variant: "Cluster API", Latency: 0, Clusters: 2, Started: start.Add(time.Hour), Finished: start.Add(2 * time.Hour),
				Speed: &MachineSpeed{HashMiBPerSecondBefore: 1510.4, HashMiBPerSecondAfter: 1490.6, StealSeconds: 3.25}},
		}}
	r.Results[0].Settings = r.Options.settings(250 * time.Millisecond)
	var buf bytes.Buffer
	r.Write(&buf)
	for _, want := range []string{"(1h55m0s in all, timed runs only)",
		"- drop-in, 250 ms: 55m0s, from 2026-12-06T21:00:00Z to 2026-12-06T21:55:00Z; machine speed not sampled",
		"- Cluster API, 0 ms: 1h0m0s, from 2026-12-06T22:00:00Z to 2026-12-06T23:00:00Z; SHA-256 at 1510 MiB/s before, 1491 MiB/s after; 3.2 s stolen",
		"**Not made yet, or to be made again:** Cluster API at 250 ms. `make scale-n200` makes them."} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, buf.String())
		}
	}
}
