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

package e2e

import (
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capiflow"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/differential"
)

// perFlow are the hooks a flow calls a fixed number of times, whatever
// the reconcile timing: their counts must match. BeforeClusterCreate is
// not among them: it is asked again at each retry while it blocks.
var perFlow = []string{
	"afterclusterupgrade", "aftercontrolplaneinitialized", "aftercontrolplaneupgrade", "afterworkersupgrade",
	"beforeclusterdelete", "beforeclusterupgrade", "beforecontrolplaneupgrade", "beforeworkersupgrade",
}

// atMostClusterAPIs are the hooks we call once per change, where Cluster
// API calls again on resyncs and on each of its own status writes: ours
// may be fewer, never more.
var atMostClusterAPIs = []string{"discovery", "discovervariables"}

// timingTolerance and timingFloor bound how far counts that follow
// reconcile timing (GeneratePatches, ValidateTopology, GenerateUpgradePlan,
// the retried BeforeClusterCreate) may be from Cluster API's: they differ
// even between two runs of the same manager, and small counts by a call or
// two whatever the manager.
const (
	timingTolerance = 0.5
	timingFloor     = 2
)

// withinTolerance tells whether ours is close enough to Cluster API's b.
func withinTolerance(ours, b float64) bool {
	return math.Abs(ours-b) <= max(timingFloor, timingTolerance*b)
}

// union is the keys of both maps, sorted.
func union(a, b map[string]float64) []string {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	return sorted
}

// compareFlows holds the drop-in's run to Cluster API's.
func compareFlows(t *testing.T, baseline, ours *capiflow.Result) {
	t.Helper()
	if got, want := capiflow.HookResponsesJSON(ours.Hooks), capiflow.HookResponsesJSON(baseline.Hooks); got != want {
		t.Errorf("recorded hooks differ:\nours:\n%s\nCluster API's:\n%s", got, want)
	}
	for _, hook := range perFlow {
		if b := baseline.Requests[hook]; b < 1 || ours.Requests[hook] != b {
			t.Errorf("%s requests: ours %v, Cluster API's %v: want equal, and at least one", hook, ours.Requests[hook], b)
		}
	}
	for _, hook := range atMostClusterAPIs {
		if ours.Requests[hook] == 0 || ours.Requests[hook] > baseline.Requests[hook] {
			t.Errorf("%s requests: ours %v, Cluster API's %v: want at least one and at most Cluster API's", hook, ours.Requests[hook], baseline.Requests[hook])
		}
	}
	for _, hook := range union(baseline.Requests, ours.Requests) {
		if slices.Contains(perFlow, hook) || slices.Contains(atMostClusterAPIs, hook) {
			continue
		}
		if o, b := ours.Requests[hook], baseline.Requests[hook]; !withinTolerance(o, b) {
			t.Errorf("%s requests: ours %v, Cluster API's %v: more than %.0f%% (or %v) apart", hook, o, b, 100*timingTolerance, timingFloor)
		}
	}
	comparison := differential.Compare(baseline.Status, ours.Status, differential.AllowList)
	for _, d := range comparison.Unexplained {
		t.Errorf("%s: Cluster API wrote %s, we wrote %s", d.Path, d.Baseline, d.Ours)
	}
	for _, d := range comparison.Messages {
		t.Logf("wording differs at %s: Cluster API wrote %q, we wrote %q", d.Path, d.Baseline, d.Ours)
	}
	if got, want := strings.Join(ours.Conditions, "\n"), strings.Join(baseline.Conditions, "\n"); got != want {
		t.Errorf("the Cluster's conditions differ:\nours:\n%s\nCluster API's:\n%s", got, want)
	}
	if path := os.Getenv(reportEnv); path != "" {
		if err := os.WriteFile(path, []byte(report(baseline, ours, comparison.Allowed)), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// reportEnv names the file the side-by-side run writes its figures to.
const reportEnv = "RSC_E2E_REPORT"

// report is the side-by-side figures as Markdown tables, and what the
// comparison allowed.
func report(baseline, ours *capiflow.Result, allowed []differential.Difference) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Cluster API's provisioning flow: the drop-in beside Cluster API's own manager\n\n")
	fmt.Fprintf(&b, "One Cluster of Cluster API v1.14.2's in-memory ClusterClass (1 control plane, %d workers), its test extension, CABPK, KCP and the in-memory provider, one run each on a fresh local control plane (`make compare-flow`).\n\n", capiflow.WorkerMachines)
	fmt.Fprintf(&b, "| step, time since the Cluster was created | drop-in | Cluster API |\n| --- | --- | --- |\n")
	for _, step := range []string{"create", "upgrade", "scale", "delete"} {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", step, ours.Steps[step], baseline.Steps[step])
	}
	table := func(title string, o, bl map[string]float64) {
		sorted := union(o, bl)
		fmt.Fprintf(&b, "\n| %s | drop-in | Cluster API |\n| --- | --- | --- |\n", title)
		for _, k := range sorted {
			fmt.Fprintf(&b, "| %s | %v | %v |\n", k, o[k], bl[k])
		}
	}
	table("extension requests, by hook", ours.Requests, baseline.Requests)
	table("reconciles, by controller", ours.Reconciles, baseline.Reconciles)
	fmt.Fprintf(&b, "\nCluster API runs with its defaults: ReconcilerRateLimiting and PriorityQueue on, which shape its counts and times.\n")
	fmt.Fprintf(&b, "\nChecked: the hooks the test extension recorded are the same; the requests of hooks a flow calls a fixed number of times (%s) are equal; "+
		"Discovery and DiscoverVariables are at least one and at most Cluster API's; requests that follow reconcile timing are within %.0f%% (or %d) of Cluster API's; "+
		"the Cluster's conditions (type, status, reason) are the same; the ExtensionConfig's and ClusterClass's status are compared field by field, with these differences allowed:\n\n",
		strings.Join(perFlow, ", "), 100*timingTolerance, timingFloor)
	if len(allowed) == 0 {
		fmt.Fprintf(&b, "- none\n")
	}
	for _, d := range allowed {
		fmt.Fprintf(&b, "- `%s`: %s\n", d.Path, d.Reason)
	}
	return b.String()
}
