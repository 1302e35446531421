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
	"slices"
	"testing"
	"time"
)

func TestLeaderChangeTable_ShowsTheColdCacheOnlyWhereThereIsOneAndTimesNotReached(t *testing.T) {
	change := func(toAvailable time.Duration, lookups map[string]float64) *LeaderChange {
		return &LeaderChange{NewLeader: "core-manager-1.log", ToLead: 15 * time.Second, ToAvailable: toAvailable, Window: 10 * time.Minute,
			Counters: Counters{Requests: map[string]float64{hookGeneratePatches: 210}, CacheLookups: lookups}}
	}
	results := []*RunResult{
		{Variant: DropIn.Name, LeaderChange: change(70*time.Second, nil)},
		{Variant: ClusterAPI.Name, LeaderChange: change(0, nil)},
		{Variant: DropInCache.Name, LeaderChange: change(65*time.Second, map[string]float64{"GeneratePatches/miss": 201, "GeneratePatches/hit": 9})},
	}
	table := LeaderChangeTable(results)
	row := func(label string) []string {
		i := slices.IndexFunc(table.Rows, func(r []string) bool { return r[0] == label })
		if i < 0 {
			t.Fatalf("no row %q in %v", label, table.Rows)
		}
		return table.Rows[i]
	}
	if got, want := row("new leader's cache lookups: GeneratePatches/miss"), []string{"new leader's cache lookups: GeneratePatches/miss", "n/a", "n/a", "n/a", "201"}; !slices.Equal(got, want) {
		t.Errorf("misses row %v, want %v", got, want)
	}
	if got := row("kill to the new Cluster Available"); got[2] != "not within the window" || got[3] != "n/a" {
		t.Errorf("a Cluster not Available within the window shows as %v", got)
	}
	if got := row("requests in the window: " + hookGeneratePatches); got[1] != "210" || got[4] != "210" {
		t.Errorf("requests row %v", got)
	}
}
