package e2e

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/differential"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
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

// collectCounts reads the test extension's requests (controller-runtime's
// webhook metrics, by path) and the core manager's reconciles.
func (f *flow) collectCounts() {
	f.t.Helper()
	ext, err := f.mgmt.Scrape(f.ctx, capimanagement.TestExtensionName)
	if err != nil {
		f.t.Fatal(err)
	}
	f.result.requests = map[string]float64{}
	for _, series := range ext["controller_runtime_webhook_requests_total"].GetMetric() {
		for _, l := range series.GetLabel() {
			if l.GetName() == "webhook" {
				f.result.requests[hookOfPath(l.GetValue())] += series.GetCounter().GetValue()
			}
		}
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
	cc.Namespace, cc.Name = namespace, "in-memory"
	s, err := differential.Take(f.ctx, f.c, &differential.Fixture{
		ExtensionConfigs: []*runtimev1.ExtensionConfig{ext}, ClusterClasses: []*clusterv1.ClusterClass{cc},
	})
	if err != nil {
		f.t.Fatal(err)
	}
	f.result.status = s
	cluster := &clusterv1.Cluster{}
	if err := f.c.Get(f.ctx, client.ObjectKey{Namespace: namespace, Name: clusterName}, cluster); err != nil {
		f.t.Fatal(err)
	}
	for _, c := range cluster.Status.Conditions {
		f.result.conditions = append(f.result.conditions, fmt.Sprintf("%s=%s (%s)", c.Type, c.Status, c.Reason))
	}
	sort.Strings(f.result.conditions)
}

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

// timingTolerance bounds how far counts that follow reconcile timing
// (GeneratePatches, ValidateTopology, GenerateUpgradePlan, the retried
// BeforeClusterCreate) may be from Cluster API's: they differ even between
// two runs of the same manager.
const timingTolerance = 0.5

// compareFlows holds the drop-in's run to Cluster API's.
func compareFlows(t *testing.T, baseline, ours *flowResult) {
	t.Helper()
	if got, want := hookResponsesJSON(ours.hooks), hookResponsesJSON(baseline.hooks); got != want {
		t.Errorf("recorded hooks differ:\nours:\n%s\nCluster API's:\n%s", got, want)
	}
	for _, hook := range perFlow {
		if ours.requests[hook] != baseline.requests[hook] {
			t.Errorf("%s requests: ours %v, Cluster API's %v", hook, ours.requests[hook], baseline.requests[hook])
		}
	}
	for _, hook := range atMostClusterAPIs {
		if ours.requests[hook] == 0 || ours.requests[hook] > baseline.requests[hook] {
			t.Errorf("%s requests: ours %v, Cluster API's %v: want at least one and at most Cluster API's", hook, ours.requests[hook], baseline.requests[hook])
		}
	}
	for hook, b := range baseline.requests {
		if contains(perFlow, hook) || contains(atMostClusterAPIs, hook) {
			continue
		}
		if o := ours.requests[hook]; math.Abs(o-b) > timingTolerance*b {
			t.Errorf("%s requests: ours %v, Cluster API's %v: more than %.0f%% apart", hook, o, b, 100*timingTolerance)
		}
	}
	comparison := differential.Compare(baseline.status, ours.status, differential.AllowList)
	for _, d := range comparison.Unexplained {
		t.Errorf("%s: Cluster API wrote %s, we wrote %s", d.Path, d.Baseline, d.Ours)
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

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// report is the side-by-side figures as Markdown tables, and what the
// comparison allowed.
func report(baseline, ours *flowResult, allowed []differential.Difference) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Cluster API's provisioning flow: the drop-in beside Cluster API's own manager\n\n")
	fmt.Fprintf(&b, "One Cluster of Cluster API v1.14.2's in-memory ClusterClass (1 control plane, %d workers), its test extension, CABPK, KCP and the in-memory provider, one run each on a fresh local control plane (`make e2e-compare`).\n\n", workerMachines)
	fmt.Fprintf(&b, "| step, time since the Cluster was created | drop-in | Cluster API |\n| --- | --- | --- |\n")
	for _, step := range []string{"create", "upgrade", "scale", "delete"} {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", step, ours.steps[step], baseline.steps[step])
	}
	table := func(title string, o, bl map[string]float64) {
		keys := map[string]bool{}
		for k := range o {
			keys[k] = true
		}
		for k := range bl {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		fmt.Fprintf(&b, "\n| %s | drop-in | Cluster API |\n| --- | --- | --- |\n", title)
		for _, k := range sorted {
			fmt.Fprintf(&b, "| %s | %v | %v |\n", k, o[k], bl[k])
		}
	}
	table("extension requests, by hook", ours.requests, baseline.requests)
	table("reconciles, by controller", ours.reconciles, baseline.reconciles)
	fmt.Fprintf(&b, "\nCluster API runs with its defaults: ReconcilerRateLimiting and PriorityQueue on, which shape its counts and times.\n")
	fmt.Fprintf(&b, "\nChecked: the hooks the test extension recorded are the same; the requests of hooks a flow calls a fixed number of times (%s) are equal; "+
		"Discovery and DiscoverVariables are at least one and at most Cluster API's; requests that follow reconcile timing are within %.0f%% of Cluster API's; "+
		"the Cluster's conditions (type, status, reason) are the same; the ExtensionConfig's and ClusterClass's status are compared field by field, with these differences allowed:\n\n",
		strings.Join(perFlow, ", "), 100*timingTolerance)
	if len(allowed) == 0 {
		fmt.Fprintf(&b, "- none\n")
	}
	for _, d := range allowed {
		fmt.Fprintf(&b, "- `%s`: %s\n", d.Path, d.Reason)
	}
	return b.String()
}
