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
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
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

// Write prints the report as markdown.
func (r *Report) Write(w io.Writer) {
	o := r.Options
	fmt.Fprintf(w, "# Cluster API's scale shape, side by side: N = %d\n\n", o.Clusters)
	fmt.Fprintf(w, "Made by `%s` (one run per manager, each on a fresh management cluster).\n\n", r.Command)
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
			fmt.Fprintf(w, "**%s stopped:** %s\n\n", res.Variant, res.Err)
		}
	}
	for _, e := range Events {
		fmt.Fprintf(w, "## %s\n\n", e)
		EventTable(e, r.Results).Write(w)
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "## Whole run (sum of the events; peak RSS is the largest)\n\n")
	var totals []*RunResult
	for _, res := range r.Results {
		totals = append(totals, TotalOf(res))
	}
	EventTable("total", totals).Write(w)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "## Lifecycle hooks\n\nCluster API caches some lifecycle hook answers in its reconcilers (#13006), which the drop-in runs unchanged; "+
		"its runtime client is ours, so these counts show the two agree.\n\n")
	LifecycleTable(r.Results).Write(w)
	fmt.Fprintln(w)
	if _, _, cache := columns(r.Results); cache != nil {
		fmt.Fprintf(w, "## GeneratePatches and ValidateTopology with the response cache\n\n")
		CacheTable(r.Results).Write(w)
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "## Generated objects\n\nThe Clusters and what the topology controller generated for them (DevCluster, KubeadmControlPlane, MachineDeployments, "+
		"DevMachineTemplates, KubeadmConfigTemplates): spec and labels, by kind and name without the generated suffix, generated names inside specs normalised "+
		"the same way, the control plane endpoint (the in-memory provider's port, given in creation order) left out.\n\n")
	for _, line := range SpecCheck(r.Results) {
		fmt.Fprintf(w, "- %s\n", line)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "## Discovery and conditions\n\n")
	for _, res := range r.Results {
		fmt.Fprintf(w, "- %s: handlers %s; ExtensionConfig conditions at the end: %s\n", res.Variant, strings.Join(slices.Sorted(slices.Values(res.Handlers)), ", "), strings.Join(res.ExtensionConfigConditions, "; "))
	}
}
