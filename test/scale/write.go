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
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// SpecCheck compares the generated objects of the cache run with those of
// the drop-in's run without it, after create and after upgrade, and, as a
// reference, the drop-in's with Cluster API's. Each line is a verdict.
func SpecCheck(results []*RunResult) []string {
	ours, capi, cache := columns(results)
	var lines []string
	compare := func(what string, a, b *RunResult) {
		if a == nil || b == nil {
			return
		}
		for _, s := range []struct {
			when      string
			want, got Specs
		}{{"after create", a.SpecsAfterCreate, b.SpecsAfterCreate}, {"after upgrade", a.SpecsAfterUpgrade, b.SpecsAfterUpgrade}} {
			if s.want == nil || s.got == nil {
				lines = append(lines, fmt.Sprintf("%s, %s: not taken (a run stopped before)", what, s.when))
				continue
			}
			diffs := DiffSpecs(s.want, s.got)
			if len(diffs) == 0 {
				lines = append(lines, fmt.Sprintf("%s, %s: the same %d objects, specs and labels equal", what, s.when, len(s.want)))
				continue
			}
			lines = append(lines, fmt.Sprintf("%s, %s: %d differences among %d/%d objects:\n\n```\n%s\n```", what, s.when, len(diffs), len(s.want), len(s.got), strings.Join(first(diffs, 20), "\n")))
		}
	}
	compare("cache on vs off (drop-in)", ours, cache)
	compare("drop-in vs Cluster API", ours, capi)
	return lines
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("... and %d more", len(s)-n))
	}
	return s
}

// writeSetUp says what a run with the slow extension, more manager flags
// or a leader change did beyond Cluster API's scale shape.
func (r *Report) writeSetUp(w io.Writer) {
	o := r.Options
	if o.Concurrency >= o.Clusters {
		fmt.Fprintf(w, "**Concurrency %d covers every Cluster**: the driver creates, upgrades and deletes them all at once and waits for each, "+
			"so the managers and the machine set the pace, not the driver. It waits through a watch of Clusters and Machines rather than by polling, "+
			"so that its reads add nothing to kube-apiserver's load but the watch.\n\n", o.Concurrency)
	}
	if len(o.ManagerArgs) > 0 {
		fmt.Fprintf(w, "Every core manager also runs with `%s`, the same under each.\n\n", strings.Join(o.ManagerArgs, " "))
	}
	if measuredLoad(r.Results) {
		fmt.Fprintf(w, "**Every Runtime SDK call goes through the slow extension** (`test/slowextension`), a TLS proxy in front of Cluster API's unmodified test extension: "+
			"it holds each request for the run's latency, then passes it on over verified TLS. Its busy seconds are, for each request, the time from its arrival "+
			"to its answer, added up: what an extension that answers one request at a time would be busy for. Process CPU seconds are from /proc for every process "+
			"of the management cluster; the machine's busy share is from /proc/stat over all cores. When it is near 100%%, the machine set the pace, "+
			"and the process rows say which part of it.\n\n")
	}
	if o.LeaderElection {
		fmt.Fprintf(w, "Every core manager runs with `--leader-elect` (its Lease `%s/%s`), as Cluster API's Deployment runs it.", capimanagement.LeaseNamespace, capimanagement.LeaseName)
		if len(o.LeaderChangeLatencies) > 0 {
			fmt.Fprintf(w, " **The leader change** (at %s), made with every Cluster Available, before the delete: a second replica is started and stands by; the leader "+
				"is killed with SIGKILL and started again at once, on its webhook port, as kubelet restarts a container; Cluster `%s` is created right after the kill, "+
				"retried until the core manager's webhooks take it. Its counts run for %s from the takeover: the extension's requests, the new leader's reconciles, "+
				"CPU and peak RSS. The new leader is quiet once its %s reconciles and the extension's requests stop for %s; with a sync period of %s, "+
				"resyncs wake it again each period, so \"until quiet\" is the takeover's own burst.", latencyList(o.LeaderChangeLatencies), TakeoverClusterName,
				o.LeaderChangeWindow, strings.Join(Controllers, ", "), o.Quiet, o.SyncPeriod)
		}
		fmt.Fprintf(w, "\n\n")
	}
}

// writeRunTimes says what each run took, its management cluster's start
// and stop included, and which runs the report still lacks or holds only
// as stopped or made with another shape.
func (r *Report) writeRunTimes(w io.Writer) {
	var total time.Duration
	var lines []string
	for _, res := range r.Results {
		if res.Started.IsZero() || res.Finished.IsZero() {
			lines = append(lines, fmt.Sprintf("- %s, %s: not timed (made before runs were)", res.Variant, latencyName(res.Latency)))
			continue
		}
		took := res.Finished.Sub(res.Started).Round(time.Minute)
		total += took
		lines = append(lines, fmt.Sprintf("- %s, %s: %s, from %s to %s; %s", res.Variant, latencyName(res.Latency), took,
			res.Started.Format(time.RFC3339), res.Finished.Format(time.RFC3339), speedOf(res.Speed)))
	}
	if len(lines) > 0 {
		fmt.Fprintf(w, "What each run took, its management cluster's start and stop included (%s in all, timed runs only), "+
			"and the machine it had: how fast one core computed SHA-256 before and after it, with nothing else running, "+
			"and the CPU time the hypervisor took from the machine during it. Every session runs on a fresh machine "+
			"that reports the same CPU model, so only these say whether two runs had the same one:\n\n%s\n\n", total, strings.Join(lines, "\n"))
	}
	if missing := r.Missing(); len(missing) > 0 {
		fmt.Fprintf(w, "**Not made yet, or to be made again:** %s. `%s` makes them.\n\n", strings.Join(missing, ", "), cmp.Or(r.MadeBy, r.Command))
	}
}

// speedOf says what machine a run had, or that it was made before runs
// sampled it.
func speedOf(s *MachineSpeed) string {
	if s == nil {
		return "machine speed not sampled (made before runs sampled it)"
	}
	return fmt.Sprintf("SHA-256 at %.0f MiB/s before, %.0f MiB/s after; %.1f s stolen", s.HashMiBPerSecondBefore, s.HashMiBPerSecondAfter, s.StealSeconds)
}

func latencyList(latencies []time.Duration) string {
	var names []string
	for _, l := range latencies {
		names = append(names, latencyName(l))
	}
	return strings.Join(names, ", ")
}

// LatencyGroup is the runs at one latency of the slow extension.
type LatencyGroup struct {
	Latency time.Duration
	Results []*RunResult
}

// ByLatency groups results by latency, lowest first.
func ByLatency(results []*RunResult) []LatencyGroup {
	var groups []LatencyGroup
	for _, r := range results {
		i := slices.IndexFunc(groups, func(g LatencyGroup) bool { return g.Latency == r.Latency })
		if i < 0 {
			groups = append(groups, LatencyGroup{Latency: r.Latency})
			i = len(groups) - 1
		}
		groups[i].Results = append(groups[i].Results, r)
	}
	slices.SortFunc(groups, func(a, b LatencyGroup) int { return int(a.Latency - b.Latency) })
	return groups
}

func latencyName(d time.Duration) string {
	if d == 0 {
		return "0 ms"
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}

// writeEvents prints the tables of one latency's runs under headings of
// level.
func writeEvents(w io.Writer, level string, results []*RunResult) {
	for _, e := range Events {
		if !madeBy(results, e) {
			continue
		}
		fmt.Fprintf(w, "%s %s\n\n", level, e)
		if e == EventLeaderChange {
			LeaderChangeTable(results).Write(w)
		} else {
			EventTable(e, results).Write(w)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s Whole run (sum of the events above but the leader change; peak RSS is the largest)\n\n", level)
	var totals []*RunResult
	for _, res := range results {
		totals = append(totals, TotalOf(res))
	}
	EventTable("total", totals).Write(w)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%s Lifecycle hooks\n\nCluster API caches some lifecycle hook answers in its reconcilers (#13006), which the drop-in runs unchanged; "+
		"its runtime client is ours, so these counts show the two agree.\n\n", level)
	LifecycleTable(results).Write(w)
	fmt.Fprintln(w)
	if _, _, cache := columns(results); cache != nil {
		fmt.Fprintf(w, "%s GeneratePatches and ValidateTopology with the response cache\n\n", level)
		CacheTable(results).Write(w)
		fmt.Fprintln(w)
	}
}

// madeBy tells whether any run made the event.
func madeBy(results []*RunResult, event string) bool {
	for _, r := range results {
		if r.Event(event) != nil || (event == EventLeaderChange && r.LeaderChange != nil) {
			return true
		}
	}
	return false
}

// Write prints the report as markdown.
func (r *Report) Write(w io.Writer) {
	o := r.Options
	fmt.Fprintf(w, "# Cluster API's scale shape, side by side: N = %d\n\n", o.Clusters)
	if r.MadeBy != "" {
		fmt.Fprintf(w, "Made by `%s`, which runs `%s` (one run per manager and latency, each on a fresh management cluster).\n\n", r.MadeBy, r.Command)
	} else {
		fmt.Fprintf(w, "Made by `%s` (one run per manager, each on a fresh management cluster).\n\n", r.Command)
	}
	for _, note := range r.Notes {
		fmt.Fprintf(w, "%s\n\n", note)
	}
	if r.Machine != "" {
		finished := "still running"
		if !r.Finished.IsZero() {
			finished = r.Finished.Format(time.RFC3339)
		}
		fmt.Fprintf(w, "Ran on %s, from %s to %s.\n\n", r.Machine, r.Started.Format(time.RFC3339), finished)
	}
	r.writeRunTimes(w)
	fmt.Fprintf(w, "Workload, after Cluster API v1.14.2's `test/e2e/scale.go` (`scale_test.go`'s in-memory spec): %d Clusters of the `in-memory-scale` flavor "+
		"(`cluster-template-in-memory-scale.yaml`) from the in-memory ClusterClass, each 1 control plane Machine and 1 MachineDeployment of 3 workers, "+
		"created, upgraded and deleted with concurrency %d (a worker takes the next Cluster once the last is Available, upgraded or gone); "+
		"%d additional copies of the ClusterClass in the same namespace (`DeployClusterInSeparateNamespaces: false`), all using the test extension's ExtensionConfig `%s`; "+
		"the management cluster is `test/capimanagement` (CABPK, KCP, the in-memory provider and Cluster API's test extension, each its own process on the local control plane).\n\n",
		o.Clusters, o.Concurrency, o.AdditionalClasses, ExtensionConfigName)
	if r.Workload != nil {
		fmt.Fprintf(w, "**ValidateTopology runs because this run adds `validateTopologyExtension: %s` to the rendered ClusterClasses' external patch**; "+
			"Cluster API's in-memory ClusterClass names only GeneratePatches and DiscoverVariables. The test extension serves it: its Discovery registered `%s`. "+
			"Upgrade: %s → %s, as Cluster API's scale e2e does: the topology version only, since its framework sets the `etcdImageTag` and `coreDNSImageTag` variables only on a Cluster that already names them, and the `in-memory-scale` template names neither.\n\n", r.Workload.ValidateTopologyHandler, r.Workload.ValidateTopologyHandler, r.Workload.FromVersion, r.Workload.ToVersion)
	}
	r.writeSetUp(w)
	fmt.Fprintf(w, "Both managers run with `--sync-period=%s`; the idle event lasts one period and %s. An event ends when its change is done "+
		"(all Available, upgraded, gone) and for %s no reconcile of %s and no extension request happened; its wall time to quiet is up to the last such activity. ",
		o.SyncPeriod, o.IdleMargin, o.Quiet, strings.Join(Controllers, ", "))
	if _, _, cache := columns(r.Results); cache != nil {
		fmt.Fprintf(w, "The cache run annotates the ExtensionConfig `%s=%s` at creation. ", userfacing.ResponseCacheMaxAgeAnnotation, o.CacheMaxAge)
	}
	fmt.Fprintf(w, "Extension requests are the test extension's own count of requests served, by hook (its webhook metrics); reconciles are the core manager's "+
		"`controller_runtime_reconcile_total`; apiserver requests and writes are the core manager's user's in kube-apiserver's audit log; CPU is its utime+stime "+
		"from /proc, and peak RSS its VmHWM at the end of the event.\n\n")
	fmt.Fprintf(w, "Cluster API's counts are shaped by its defaults in v1.14.2: ReconcilerRateLimiting and PriorityQueue are on, so its controllers' "+
		"reconciles are rate limited and resyncs queue behind changes; the drop-in runs the same Cluster API reconcilers with the same defaults, "+
		"so the topology, cluster and machine rows compare like with like, and the ratios are Cluster API ÷ ours from one run each.\n\n")
	fmt.Fprintf(w, "Reading the rows: the drop-in re-runs Discovery of each ExtensionConfig every `--sync-period` (its rediscovery interval follows it), "+
		"so with the period scaled to %s the Discovery rows hold about one per period under it. Cluster API's topology controller does not reconcile Clusters "+
		"when an ExtensionConfig changes: the settings change reaches GeneratePatches at the Clusters' next resync, which falls in a later event (the upgrade), "+
		"not in the settings change's own row.\n\n", o.SyncPeriod)
	for _, res := range r.Results {
		if res.Err != "" {
			fmt.Fprintf(w, "**%s at %s stopped:** %s\n\n", res.Variant, res.Latency, res.Err)
		}
	}
	if measuredLoad(r.Results) {
		fmt.Fprintf(w, "## Who set the pace\n\nFor each event: the machine's busy share of all its cores, and the process that used the most CPU, "+
			"as a share of the busy time.\n\n")
		PaceTable(r.Results).Write(w)
		fmt.Fprintln(w)
	}
	groups := ByLatency(r.Results)
	if len(groups) == 1 && groups[0].Latency == 0 && !measuredLoad(r.Results) {
		writeEvents(w, "##", groups[0].Results)
	} else {
		for _, g := range groups {
			fmt.Fprintf(w, "## Extension latency %s\n\n", latencyName(g.Latency))
			writeEvents(w, "###", g.Results)
		}
	}
	fmt.Fprintf(w, "## Generated objects\n\nThe Clusters and what the topology controller generated for them (DevCluster, KubeadmControlPlane, MachineDeployments, "+
		"DevMachineTemplates, KubeadmConfigTemplates): spec and labels, by kind and name without the generated suffix, generated names inside specs normalised "+
		"the same way, the control plane endpoint (the in-memory provider's port, given in creation order) left out.\n\n")
	for _, g := range groups {
		for _, line := range SpecCheck(g.Results) {
			fmt.Fprintf(w, "- %s, %s\n", latencyName(g.Latency), line)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "## Discovery and conditions\n\n")
	for _, res := range r.Results {
		fmt.Fprintf(w, "- %s, %s: handlers %s; ExtensionConfig conditions at the end: %s\n", res.Variant, latencyName(res.Latency),
			strings.Join(slices.Sorted(slices.Values(res.Handlers)), ", "), strings.Join(res.ExtensionConfigConditions, "; "))
	}
}

// PaceTable says, for each run and event, how busy the machine was and
// which process used the most of its CPU: when the machine is near fully
// busy, it set the pace, and that process most of all.
func PaceTable(results []*RunResult) Table {
	var events []string
	for _, e := range Events {
		if e != EventLeaderChange && madeBy(results, e) {
			events = append(events, e)
		}
	}
	t := Table{Header: append([]string{"run"}, events...)}
	for _, g := range ByLatency(results) {
		for _, r := range g.Results {
			line := []string{fmt.Sprintf("%s, %s", r.Variant, latencyName(r.Latency))}
			for _, name := range events {
				e := r.Event(name)
				if e == nil || e.HostCPUSeconds == 0 {
					line = append(line, "n/a")
					continue
				}
				top, topCPU := busiest(e.ProcessCPUSeconds)
				line = append(line, fmt.Sprintf("%s busy; %s %s", percent(busyShare(e.Counters)), top, percent(topCPU/e.HostBusySeconds)))
			}
			t.Rows = append(t.Rows, line)
		}
	}
	return t
}

// busiest is the process with the most CPU time.
func busiest(cpu map[string]float64) (string, float64) {
	name, most := "", -1.0
	for _, n := range slices.Sorted(maps.Keys(cpu)) {
		if cpu[n] > most {
			name, most = n, cpu[n]
		}
	}
	return name, most
}
