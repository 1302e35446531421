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
	"strings"
	"testing"
	"time"
)

func TestChartGroups_OneBarPerRunThatMadeTheEvent(t *testing.T) {
	run := func(variant string, latency time.Duration, quiet time.Duration, requests float64, lc *LeaderChange) *RunResult {
		return &RunResult{Variant: variant, Latency: latency, LeaderChange: lc, Events: []EventResult{
			{Name: EventCreate, ToQuiet: quiet, Counters: Counters{Requests: map[string]float64{"generatepatches": requests, "validatetopology": requests}}},
		}}
	}
	results := []*RunResult{
		run(DropIn.Name, 250*time.Millisecond, 3*time.Minute, 100, &LeaderChange{ToQuiet: 40 * time.Second, Counters: Counters{Requests: map[string]float64{"generatepatches": 7}}}),
		run(DropIn.Name, 0, 2*time.Minute, 50, nil),
		run(ClusterAPI.Name, 0, time.Minute, 60, nil),
	}

	requests := chartGroups(results, chartMeasures[1])
	if len(requests) != 2 || requests[0].event != EventCreate || requests[1].event != EventLeaderChange {
		t.Fatalf("groups %+v, want create all and the leader change", requests)
	}
	want := []chartBar{{DropIn.Name, "0 ms", 100}, {ClusterAPI.Name, "0 ms", 120}, {DropIn.Name, "250 ms", 200}}
	if got := requests[0].bars; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("create all's bars %+v, want %+v (lowest latency first, every hook added)", got, want)
	}
	if got := requests[1].bars; len(got) != 1 || got[0].value != 7 {
		t.Errorf("leader change's bars %+v, want the one run's window, 7 requests", got)
	}
	if wall := chartGroups(results, chartMeasures[0]); wall[1].bars[0].value != 40 {
		t.Errorf("leader change's wall time %v, want takeover to quiet, 40 s", wall[1].bars[0].value)
	}

	var svg bytes.Buffer
	if err := WriteChart(&svg, results); err != nil {
		t.Fatal(err)
	}
	// A bar per run and event in each panel, and a legend entry per run
	// in each.
	if got, wantBars := strings.Count(svg.String(), "<rect x="), 2*(3+1)+2*3; got != wantBars {
		t.Errorf("%d rectangles, want %d", got, wantBars)
	}
}

func TestChartGroups_LeaveOutAnEventNotDone(t *testing.T) {
	results := []*RunResult{
		{Variant: DropIn.Name, Events: []EventResult{{Name: EventCreate, ToQuiet: time.Minute}}},
		{Variant: ClusterAPI.Name, Events: []EventResult{{Name: EventCreate, ToQuiet: time.Hour, NotDone: true}}},
	}
	groups := chartGroups(results, chartMeasures[0])
	if len(groups) != 1 || len(groups[0].bars) != 1 || groups[0].bars[0].variant != DropIn.Name {
		t.Errorf("groups %+v, want create all with the drop-in's bar only", groups)
	}
}

func TestPaceTable_NamesTheBusiestProcessOfEachEvent(t *testing.T) {
	results := []*RunResult{{Variant: DropIn.Name, Latency: 250 * time.Millisecond, Events: []EventResult{{Name: EventCreate, Counters: Counters{
		HostBusySeconds: 190, HostCPUSeconds: 200,
		ProcessCPUSeconds: map[string]float64{"kube-apiserver": 95, "core-manager": 50, "etcd": 10},
	}}}}}
	got := PaceTable(results)
	if len(got.Rows) != 1 || got.Rows[0][1] != "95% busy; kube-apiserver 50%" {
		t.Errorf("PaceTable rows %q, want the machine 95%% busy and kube-apiserver with half of it", got.Rows)
	}
}
