package e2e

import (
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/differential"
)

// flowResult is what one run of the flow measured and saw.
type flowResult struct {
	manager string
	// steps are the times from the Cluster's creation to the end of each
	// step.
	steps map[string]time.Duration
	// hooks are the test extension's records of its lifecycle hooks.
	hooks map[string]string
	// requests are the test extension's requests served, by hook, and
	// reconciles the core manager's, by controller.
	requests, reconciles map[string]float64
	// status is the ExtensionConfig's and ClusterClass's status, and
	// conditions the Cluster's (type, status, reason) once scaled.
	status     differential.Snapshot
	conditions []string
}

// hookOfPath turns a Runtime SDK request path into its hook's name:
// /hooks.runtime.cluster.x-k8s.io/v1alpha1/generatepatches/generate-patches
// is generatepatches; Discovery's path has no handler.
func hookOfPath(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) < 3 {
		return path
	}
	return parts[2]
}

// extensionRequests reads the requests the test extension served, by hook
// (controller-runtime's webhook metrics, by path).
func (f *flow) extensionRequests() (map[string]float64, error) {
	ext, err := f.mgmt.Scrape(f.ctx, capimanagement.TestExtensionName)
	if err != nil {
		return nil, err
	}
	requests := map[string]float64{}
	for _, series := range ext["controller_runtime_webhook_requests_total"].GetMetric() {
		for _, l := range series.GetLabel() {
			if l.GetName() == "webhook" {
				requests[hookOfPath(l.GetValue())] += series.GetCounter().GetValue()
			}
		}
	}
	return requests, nil
}

// requests is how often the test extension served hook so far; zero when
// its metrics cannot be read, for a check that polls.
func (f *flow) requests(hook string) float64 {
	requests, err := f.extensionRequests()
	if err != nil {
		return 0
	}
	return requests[hook]
}

// collectCounts reads the test extension's requests and the core
// manager's reconciles.
func (f *flow) collectCounts() {
	f.t.Helper()
	var err error
	if f.result.requests, err = f.extensionRequests(); err != nil {
		f.t.Fatal(err)
	}
	core, err := f.mgmt.Scrape(f.ctx, capimanagement.CoreManagerName)
	if err != nil {
		f.t.Fatal(err)
	}
	f.result.reconciles = map[string]float64{}
	for _, series := range core["controller_runtime_reconcile_total"].GetMetric() {
		for _, l := range series.GetLabel() {
			if l.GetName() == "controller" {
				f.result.reconciles[l.GetValue()] += series.GetCounter().GetValue()
			}
		}
	}
}

// snapshotStatus keeps the status the two managers must agree on.
func (f *flow) snapshotStatus() {
	f.t.Helper()
	ext := &runtimev1.ExtensionConfig{}
	ext.Name = extensionConfigName
	cc := &clusterv1.ClusterClass{}
	cc.Namespace, cc.Name = namespace, capimanagement.InMemoryClassName
	s, err := differential.Take(f.ctx, f.c, &differential.Fixture{
		ExtensionConfigs: []*runtimev1.ExtensionConfig{ext}, ClusterClasses: []*clusterv1.ClusterClass{cc},
	})
	if err != nil {
		f.t.Fatal(err)
	}
	f.result.status = s
	// Reasons such as scaling settle after Available: take the conditions
	// once they have read the same for quietFor. (A condition that did not
	// change keeps the observedGeneration it was last set at.)
	var last []string
	var since time.Time
	f.eventually(settleTimeout, "the Cluster's conditions settle", func() (bool, string) {
		cluster, err := f.readCluster()
		if err != nil {
			return false, err.Error()
		}
		var now []string
		for _, c := range cluster.Status.Conditions {
			now = append(now, fmt.Sprintf("%s=%s (%s)", c.Type, c.Status, c.Reason))
		}
		sort.Strings(now)
		if !slices.Equal(now, last) {
			last, since = now, time.Now()
		}
		return time.Since(since) >= quietFor, "conditions still changing"
	})
	f.result.conditions = last
}

// quietFor is how long the Cluster's conditions must stay the same to
// count as settled.
const quietFor = 3 * time.Second

// summary is one run in a few lines, for the test log.
func (r *flowResult) summary() string {
	return fmt.Sprintf("%s: steps %v\nrequests by hook: %v\nreconciles by controller: %v\nhooks recorded:\n%s",
		r.manager, r.steps, r.requests, r.reconciles, hookResponsesJSON(r.hooks))
}

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
func compareFlows(t *testing.T, baseline, ours *flowResult) {
	t.Helper()
	if got, want := hookResponsesJSON(ours.hooks), hookResponsesJSON(baseline.hooks); got != want {
		t.Errorf("recorded hooks differ:\nours:\n%s\nCluster API's:\n%s", got, want)
	}
	for _, hook := range perFlow {
		if b := baseline.requests[hook]; b < 1 || ours.requests[hook] != b {
			t.Errorf("%s requests: ours %v, Cluster API's %v: want equal, and at least one", hook, ours.requests[hook], b)
		}
	}
	for _, hook := range atMostClusterAPIs {
		if ours.requests[hook] == 0 || ours.requests[hook] > baseline.requests[hook] {
			t.Errorf("%s requests: ours %v, Cluster API's %v: want at least one and at most Cluster API's", hook, ours.requests[hook], baseline.requests[hook])
		}
	}
	for _, hook := range union(baseline.requests, ours.requests) {
		if slices.Contains(perFlow, hook) || slices.Contains(atMostClusterAPIs, hook) {
			continue
		}
		if o, b := ours.requests[hook], baseline.requests[hook]; !withinTolerance(o, b) {
			t.Errorf("%s requests: ours %v, Cluster API's %v: more than %.0f%% (or %v) apart", hook, o, b, 100*timingTolerance, timingFloor)
		}
	}
	comparison := differential.Compare(baseline.status, ours.status, differential.AllowList)
	for _, d := range comparison.Unexplained {
		t.Errorf("%s: Cluster API wrote %s, we wrote %s", d.Path, d.Baseline, d.Ours)
	}
	for _, d := range comparison.Messages {
		t.Logf("wording differs at %s: Cluster API wrote %q, we wrote %q", d.Path, d.Baseline, d.Ours)
	}
	if got, want := strings.Join(ours.conditions, "\n"), strings.Join(baseline.conditions, "\n"); got != want {
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
func report(baseline, ours *flowResult, allowed []differential.Difference) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Cluster API's provisioning flow: the drop-in beside Cluster API's own manager\n\n")
	fmt.Fprintf(&b, "One Cluster of Cluster API v1.14.2's in-memory ClusterClass (1 control plane, %d workers), its test extension, CABPK, KCP and the in-memory provider, one run each on a fresh local control plane (`make compare-flow`).\n\n", workerMachines)
	fmt.Fprintf(&b, "| step, time since the Cluster was created | drop-in | Cluster API |\n| --- | --- | --- |\n")
	for _, step := range []string{"create", "upgrade", "scale", "delete"} {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", step, ours.steps[step], baseline.steps[step])
	}
	table := func(title string, o, bl map[string]float64) {
		sorted := union(o, bl)
		fmt.Fprintf(&b, "\n| %s | drop-in | Cluster API |\n| --- | --- | --- |\n", title)
		for _, k := range sorted {
			fmt.Fprintf(&b, "| %s | %v | %v |\n", k, o[k], bl[k])
		}
	}
	table("extension requests, by hook", ours.requests, baseline.requests)
	table("reconciles, by controller", ours.reconciles, baseline.reconciles)
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
