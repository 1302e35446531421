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

package drill

import (
	"strings"
	"testing"
	"time"
)

func TestProblems_NameWhatWentWrong(t *testing.T) {
	healthyFlap := func() *FlapReport {
		return &FlapReport{Options: FlapOptions{ClusterClasses: 10}, Observed: 50, Reconciles: 100, ReconcileErrors: 40,
			ReconcileBound: 500, DiscoverVariablesCalls: 20}
	}
	longSoak := func() *SoakReport {
		r := &SoakReport{Options: SoakOptions{Duration: 10 * time.Minute}, Changes: map[string]int{}, CacheEntriesMax: 150, CacheBound: 150}
		for _, kind := range soakChanges {
			r.Changes[kind] = 1
		}
		return r
	}
	tests := []struct {
		name     string
		problems func() []string
		want     string
	}{
		{name: "a healthy flap", problems: func() []string { return healthyFlap().Problems() }},
		{name: "a lost status", want: "lost good variables", problems: func() []string {
			r := healthyFlap()
			r.Losses = []Loss{{ClusterClass: "ns/cc", Before: []string{"size"}}}
			return r.Problems()
		}},
		{name: "retries beyond backoff", want: "not backed off", problems: func() []string {
			r := healthyFlap()
			r.Reconciles = 501
			return r.Problems()
		}},
		{name: "faults that never reached the controller", want: "never reached", problems: func() []string {
			r := healthyFlap()
			r.ReconcileErrors = 0
			return r.Problems()
		}},
		{name: "more calls than reconciles", want: "DiscoverVariables calls for", problems: func() []string {
			r := healthyFlap()
			r.DiscoverVariablesCalls = 101
			return r.Problems()
		}},
		{name: "an outage that interrupted nothing", want: "interrupted no reconcile", problems: func() []string {
			return (&RestartReport{Options: RestartOptions{ClusterClasses: 5}, ConvergedAtStop: 5, AliveChecks: 3}).Problems()
		}},
		{name: "a flat long soak", problems: func() []string { return longSoak().Problems() }},
		{name: "a cache over its bound", want: "over its bound", problems: func() []string {
			r := longSoak()
			r.CacheEntriesMax = 151
			return r.Problems()
		}},
		{name: "growing goroutines", want: "goroutines grew", problems: func() []string {
			r := longSoak()
			r.Goroutines.Growth = 0.3
			return r.Problems()
		}},
		{name: "growing RSS over a long soak", want: "RSS grew", problems: func() []string {
			r := longSoak()
			r.RSS.Growth = 0.3
			return r.Problems()
		}},
		{name: "RSS warming up in a short soak", problems: func() []string {
			r := longSoak()
			r.Options.Duration = time.Minute
			r.RSS.Growth = 0.3
			return r.Problems()
		}},
		{name: "a kind of change never made", want: "no certificate-rotation change", problems: func() []string {
			r := longSoak()
			delete(r.Changes, "certificate-rotation")
			return r.Problems()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := tt.problems()
			if tt.want == "" {
				if len(problems) > 0 {
					t.Fatalf("problems %q, want none", problems)
				}
				return
			}
			if len(problems) != 1 || !strings.Contains(problems[0], tt.want) {
				t.Fatalf("problems %q, want one mentioning %q", problems, tt.want)
			}
		})
	}
}
