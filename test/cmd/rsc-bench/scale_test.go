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

package main

import (
	"slices"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/scale"
)

func TestResultsPath_SitsBesideTheReport(t *testing.T) {
	for in, want := range map[string]string{"docs/scale/n10.md": "docs/scale/n10.json", "out/report": "out/report.json"} {
		if got := resultsPath(in); got != want {
			t.Errorf("resultsPath(%q) = %q, want %q", in, got, want)
		}
	}
	if got := chartPath("docs/scale/n200.md"); got != "docs/scale/n200.svg" {
		t.Errorf("chartPath = %q, want docs/scale/n200.svg", got)
	}
}

func TestParseDurations_ReadsAListAndRefusesANegative(t *testing.T) {
	got, err := parseDurations("0, 250ms")
	if err != nil || len(got) != 2 || got[0] != 0 || got[1] != 250*time.Millisecond {
		t.Errorf("parseDurations = %v, %v; want [0 250ms]", got, err)
	}
	for _, bad := range []string{"-1s", "fast", ""} {
		if _, err := parseDurations(bad); err == nil {
			t.Errorf("parseDurations(%q) succeeded", bad)
		}
	}
}

func TestParseManagers_RejectsAnUnknownName(t *testing.T) {
	got, err := parseManagers("drop-in, capi,cache")
	if err != nil || len(got) != 3 || !got[2].Cache {
		t.Errorf("parseManagers = %+v, %v", got, err)
	}
	if _, err := parseManagers("drop-in,kcp"); err == nil {
		t.Error("parseManagers accepted kcp")
	}
}

func TestCheckLeaderChange_RefusesOneThatWouldNotBeMade(t *testing.T) {
	at := []time.Duration{250 * time.Millisecond}
	for name, tt := range map[string]struct {
		o      scale.Options
		wantOK bool
	}{
		"none asked":                   {o: scale.Options{}, wantOK: true},
		"made":                         {o: scale.Options{LeaderElection: true, Latencies: at, LeaderChangeLatencies: at}, wantOK: true},
		"without leader election":      {o: scale.Options{Latencies: at, LeaderChangeLatencies: at}},
		"at a latency that never runs": {o: scale.Options{LeaderElection: true, LeaderChangeLatencies: at}},
		"its event left out":           {o: scale.Options{LeaderElection: true, Latencies: at, LeaderChangeLatencies: at, Only: []string{scale.EventCreate}}},
	} {
		if err := checkLeaderChange(tt.o); (err == nil) != tt.wantOK {
			t.Errorf("%s: checkLeaderChange = %v, want ok %v", name, err, tt.wantOK)
		}
	}
}

func TestWithoutNotes_LeavesTheNotesOutOfTheCommand(t *testing.T) {
	args := []string{"--clusters", "200", "--note", "why twenty", "-note=why leases", "--made-by", "make scale-n200", "--out", "note.md"}
	want := []string{"--clusters", "200", "--made-by", "make scale-n200", "--out", "note.md"}
	if got := withoutNotes(args); !slices.Equal(got, want) {
		t.Errorf("withoutNotes = %q, want %q", got, want)
	}
}
