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
	"sort"
	"strings"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// Report is the side-by-side report of one scale run.
type Report struct {
	// Command made the run, and MadeBy names the make target that ran it.
	Command string
	MadeBy  string `json:",omitempty"`
	Options Options
	Results []*RunResult
	// Workload is what every variant ran.
	Workload *Workload
	// Notes say what the run chose and why, under its heading.
	Notes []string `json:",omitempty"`
	// Machine describes where it ran, and Started and Finished when.
	Machine           string
	Started, Finished time.Time
	// Variants are the managers the command asked for, by name: with
	// Options.Latencies, the runs the report is complete with.
	Variants []string `json:",omitempty"`
}

// Missing names the runs the command asked for that the report does not
// hold yet, or holds only as stopped or made with another shape (see
// Options.Keeps), saying which of the last two: a whole run may span
// sessions.
func (r *Report) Missing() []string {
	var missing []string
	for _, l := range r.Options.RunLatencies() {
		for _, v := range r.Variants {
			if slices.ContainsFunc(r.Results, func(res *RunResult) bool { return res.Variant == v && res.Latency == l && r.Options.Keeps(res) }) {
				continue
			}
			name := fmt.Sprintf("%s at %s", v, latencyName(l))
			switch i := slices.IndexFunc(r.Results, func(res *RunResult) bool { return res.Variant == v && res.Latency == l }); {
			case i < 0: // never made: the name alone says so
			case r.Results[i].Err != "":
				name += " (stopped before its end)"
			default:
				name += " (made with another shape)"
			}
			missing = append(missing, name)
		}
	}
	return missing
}

// Hook names as the test extension's request paths spell them.
const (
	hookGeneratePatches  = "generatepatches"
	hookValidateTopology = "validatetopology"
)

// extensionHooks are the Runtime SDK calls of the topology machinery and
// registry, listed before the lifecycle hooks.
var extensionHooks = []string{"discovery", "discovervariables", hookGeneratePatches, hookValidateTopology, "generateupgradeplan"}

// Ratio is Cluster API ÷ ours, as the report prints it: "=" when both are
// zero, "—" when only ours is.
func Ratio(capi, ours float64) string {
	switch {
	case ours == 0 && capi == 0:
		return "="
	case ours == 0:
		return "—"
	}
	r := capi / ours
	if r >= 10 {
		return fmt.Sprintf("%.0f×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}

// RepeatShare is the share of requests the cache answered, from the
// requests sent without it and with it: 1 - with/without. It is "—" when
// nothing was sent without it.
func RepeatShare(without, with float64) string {
	if without == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", 100*(1-with/without))
}

// HitShare is hits ÷ (hits + misses), or "—" with no lookups.
func HitShare(hits, misses float64) string {
	if hits+misses == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", 100*hits/(hits+misses))
}

// columns picks the variants' results in the report's order: the drop-in,
// Cluster API's manager, then the drop-in with the cache (nil when a
// variant did not run).
func columns(results []*RunResult) (ours, capi, cache *RunResult) {
	for _, r := range results {
		switch r.Variant {
		case DropIn.Name:
			ours = r
		case ClusterAPI.Name:
			capi = r
		case DropInCache.Name:
			cache = r
		}
	}
	return ours, capi, cache
}

// row is one measure of an event under each variant.
type row struct {
	label string
	value func(*EventResult) float64
	// format prints a value; integers by default.
	format func(float64) string
}

func integer(v float64) string { return fmt.Sprintf("%.0f", v) }

func seconds(v float64) string {
	return (time.Duration(v * float64(time.Second))).Round(time.Second).String()
}

// EventRows are the measures of one event: wall times, requests per hook
// seen under any variant, reconciles per controller, the core manager's
// apiserver requests and writes, CPU and peak RSS.
func EventRows(event string, results []*RunResult) []row {
	rows := []row{{label: "wall time to quiet", value: func(e *EventResult) float64 { return e.ToQuiet.Seconds() }, format: seconds}}
	if event == EventCreate || event == EventUpgrade {
		rows = append(rows, row{label: "wall time to all Available", value: func(e *EventResult) float64 { return e.ToDone.Seconds() }, format: seconds})
	}
	if event == EventDelete {
		rows = append(rows, row{label: "wall time to all gone", value: func(e *EventResult) float64 { return e.ToDone.Seconds() }, format: seconds})
	}
	for _, hook := range hooksSeen(results, event) {
		rows = append(rows, row{label: "requests: " + hook, value: func(e *EventResult) float64 { return e.Requests[hook] }})
	}
	for _, c := range Controllers {
		rows = append(rows, row{label: "reconciles: " + c, value: func(e *EventResult) float64 { return e.Reconciles[c] }})
	}
	rows = append(rows,
		row{label: "apiserver requests (core manager)", value: func(e *EventResult) float64 { return float64(e.APIRequests) }},
		row{label: "apiserver writes (core manager)", value: func(e *EventResult) float64 { return float64(e.APIWrites) }},
		row{label: "CPU seconds (core manager)", value: func(e *EventResult) float64 { return e.CPUSeconds }, format: oneDecimal},
		row{label: "peak RSS MiB (core manager, VmHWM)", value: func(e *EventResult) float64 { return float64(e.PeakRSSBytes) / (1 << 20) }},
	)
	if measuredLoad(results) {
		rows = append(rows, loadRows...)
	}
	return rows
}

func oneDecimal(v float64) string { return fmt.Sprintf("%.1f", v) }

// loadRows are what the slow extension and the machine went through:
// runs before the slow extension and /proc readings of every process
// have none of them.
var loadRows = []row{
	{label: "extension busy seconds (all hooks)", value: func(e *EventResult) float64 { return sum(e.ExtensionBusySeconds) }, format: oneDecimal},
	{label: "extension requests the slow extension failed", value: func(e *EventResult) float64 { return sum(e.ExtensionFailed) }},
	{label: "CPU seconds: kube-apiserver", value: func(e *EventResult) float64 { return e.ProcessCPUSeconds["kube-apiserver"] }, format: oneDecimal},
	{label: "CPU seconds: etcd", value: func(e *EventResult) float64 { return e.ProcessCPUSeconds["etcd"] }, format: oneDecimal},
	{label: "CPU seconds: providers (CABPK, KCP, in-memory, test extension)", value: providersCPUSeconds, format: oneDecimal},
	{label: "CPU seconds: driver and slow extension", value: func(e *EventResult) float64 { return e.ProcessCPUSeconds[DriverName] }, format: oneDecimal},
	{label: "machine CPU busy (of all cores)", value: func(e *EventResult) float64 { return busyShare(e.Counters) }, format: percent},
}

func percent(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) }

func sum(m map[string]float64) float64 {
	total := 0.0
	for _, v := range m {
		total += v
	}
	return total
}

// busyShare is the machine's busy CPU time over its total.
func busyShare(c Counters) float64 {
	if c.HostCPUSeconds == 0 {
		return 0
	}
	return c.HostBusySeconds / c.HostCPUSeconds
}

func providersCPUSeconds(e *EventResult) float64 {
	total := 0.0
	for _, name := range []string{capimanagement.BootstrapName, capimanagement.ControlPlaneName, capimanagement.InfrastructureName, capimanagement.TestExtensionName} {
		total += e.ProcessCPUSeconds[name]
	}
	return total
}

// measuredLoad tells whether any result has the slow extension's and the
// machine's readings.
func measuredLoad(results []*RunResult) bool {
	for _, r := range results {
		for _, e := range r.Events {
			if e.HostCPUSeconds > 0 {
				return true
			}
		}
	}
	return false
}

// hooksSeen lists the hooks any variant's extension served during event:
// the topology hooks first, in extensionHooks' order, then lifecycle hooks
// by name.
func hooksSeen(results []*RunResult, event string) []string {
	seen := map[string]bool{}
	for _, r := range results {
		if e := r.Event(event); e != nil {
			for h, v := range e.Requests {
				if v != 0 {
					seen[h] = true
				}
			}
		}
	}
	var out, lifecycle []string
	for _, h := range extensionHooks {
		if seen[h] {
			out = append(out, h)
			delete(seen, h)
		}
	}
	for h := range seen {
		lifecycle = append(lifecycle, h)
	}
	sort.Strings(lifecycle)
	return append(out, lifecycle...)
}

// Table is a markdown table.
type Table struct {
	Header []string
	Rows   [][]string
}

// Write prints t as a markdown table.
func (t Table) Write(w io.Writer) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(t.Header, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat(" --- |", len(t.Header)))
	for _, r := range t.Rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
	}
}

// EventTable is one event's side-by-side table: the drop-in, Cluster
// API's manager, Cluster API ÷ ours, and the drop-in with the cache when
// it ran. A variant without the event shows "n/a".
func EventTable(event string, results []*RunResult) Table {
	ours, capi, cache := columns(results)
	t := Table{Header: []string{event, DropIn.Name, ClusterAPI.Name, "Cluster API ÷ ours"}}
	if cache != nil {
		t.Header = append(t.Header, DropInCache.Name)
	}
	for _, rw := range EventRows(event, results) {
		format := rw.format
		if format == nil {
			format = integer
		}
		// cell is a variant's value, and whether it compares: an event not
		// done by its deadline did less of the change, so its counts are
		// printed, marked, but take no ratio.
		cell := func(r *RunResult) (string, float64, bool) {
			if r == nil {
				return "n/a", 0, false
			}
			e := r.Event(event)
			if e == nil {
				return "n/a", 0, false
			}
			v := rw.value(e)
			s := format(v)
			switch {
			case e.NotDone && strings.HasPrefix(rw.label, "wall time"):
				s = "not done after " + seconds(e.ToQuiet.Seconds())
			case e.NotDone:
				s = marked(s, true)
			case e.NotQuiet && strings.HasPrefix(rw.label, "wall time to quiet"):
				s = "not quiet after " + s
			}
			return s, v, !e.NotDone
		}
		o, ov, okO := cell(ours)
		c, cv, okC := cell(capi)
		ratio := "n/a"
		if okO && okC {
			ratio = Ratio(cv, ov)
		}
		line := []string{rw.label, o, c, ratio}
		if cache != nil {
			s, _, _ := cell(cache)
			line = append(line, s)
		}
		t.Rows = append(t.Rows, line)
	}
	return t
}

// TotalOf sums the events of a run into one, for the totals table: wall
// times add, the peak is the largest. A run that measured no event has no
// total, so that its tables print it as not run rather than as zeros.
func TotalOf(r *RunResult) *RunResult {
	if len(r.Events) == 0 {
		return &RunResult{Variant: r.Variant, Clusters: r.Clusters}
	}
	total := EventResult{Name: "total", Counters: Counters{Requests: map[string]float64{}, Reconciles: map[string]float64{}, CacheLookups: map[string]float64{}}}
	for _, e := range r.Events {
		total.ToQuiet += e.ToQuiet
		total.ToDone += e.ToDone
		total.NotQuiet = total.NotQuiet || e.NotQuiet
		total.NotDone = total.NotDone || e.NotDone
		for k, v := range e.Requests {
			total.Requests[k] += v
		}
		for k, v := range e.Reconciles {
			total.Reconciles[k] += v
		}
		for k, v := range e.CacheLookups {
			total.CacheLookups[k] += v
		}
		total.APIRequests += e.APIRequests
		total.APIWrites += e.APIWrites
		total.CPUSeconds += e.CPUSeconds
		total.PeakRSSBytes = max(total.PeakRSSBytes, e.PeakRSSBytes)
		total.ExtensionBusySeconds = addMap(total.ExtensionBusySeconds, e.ExtensionBusySeconds)
		total.ExtensionFailed = addMap(total.ExtensionFailed, e.ExtensionFailed)
		total.ProcessCPUSeconds = addMap(total.ProcessCPUSeconds, e.ProcessCPUSeconds)
		total.HostBusySeconds += e.HostBusySeconds
		total.HostCPUSeconds += e.HostCPUSeconds
	}
	return &RunResult{Variant: r.Variant, Clusters: r.Clusters, Events: []EventResult{total}}
}

// addMap adds b into a, made when nil.
func addMap(a, b map[string]float64) map[string]float64 {
	if a == nil {
		a = map[string]float64{}
	}
	for k, v := range b {
		a[k] += v
	}
	return a
}

// marked is s, followed by " (not done)" when it counts an event not done
// by its deadline.
func marked(s string, notDone bool) string {
	if notDone {
		return s + " (not done)"
	}
	return s
}

// CacheTable compares GeneratePatches and ValidateTopology requests per
// event with the cache off (the drop-in), on, and under Cluster API's
// manager, with the share of repeats the cache answered: from the
// requests (1 - on/off) and from the drop-in's own lookups (hits ÷
// lookups).
func CacheTable(results []*RunResult) Table {
	ours, capi, cache := columns(results)
	t := Table{Header: []string{"event", "hook", "cache off (drop-in)", "cache on", "Cluster API", "repeats, 1 - on/off", "hits ÷ lookups (cache on)"}}
	if ours == nil || cache == nil {
		return t
	}
	events := append(append([]string{}, Events...), "total")
	// An event not done did less of the change: its counts are marked and
	// compare with nothing.
	requests := func(e *EventResult, hook string) string { return marked(integer(e.Requests[hook]), e.NotDone) }
	for _, name := range events {
		off, on, base := ours.Event(name), cache.Event(name), (*EventResult)(nil)
		if capi != nil {
			base = capi.Event(name)
		}
		if name == "total" {
			off, on = TotalOf(ours).Event("total"), TotalOf(cache).Event("total")
			if capi != nil {
				base = TotalOf(capi).Event("total")
			}
		}
		if off == nil || on == nil {
			continue
		}
		for _, h := range []struct{ hook, metric string }{{hookGeneratePatches, "GeneratePatches"}, {hookValidateTopology, "ValidateTopology"}} {
			capiCell := "n/a"
			if base != nil {
				capiCell = requests(base, h.hook)
			}
			repeats := "n/a"
			if !off.NotDone && !on.NotDone {
				repeats = RepeatShare(off.Requests[h.hook], on.Requests[h.hook])
			}
			hits := marked(HitShare(on.CacheLookups[h.metric+"/hit"], on.CacheLookups[h.metric+"/miss"]+on.CacheLookups[h.metric+"/bypass"]), on.NotDone)
			t.Rows = append(t.Rows, []string{name, h.metric, requests(off, h.hook), requests(on, h.hook), capiCell, repeats, hits})
		}
	}
	return t
}

// lifecycleHooks are the hooks Cluster API's reconcilers call (and cache,
// #13006), outside the topology machinery.
func lifecycleHooks(results []*RunResult) []string {
	seen := map[string]bool{}
	for _, r := range results {
		for _, e := range r.Events {
			for h := range e.Requests {
				seen[h] = true
			}
		}
	}
	for _, h := range extensionHooks {
		delete(seen, h)
	}
	out := make([]string, 0, len(seen))
	for h := range seen {
		out = append(out, h)
	}
	sort.Strings(out)
	return out
}

// LifecycleTable is the lifecycle hooks' requests over the whole run.
func LifecycleTable(results []*RunResult) Table {
	ours, capi, cache := columns(results)
	t := Table{Header: []string{"lifecycle hook (whole run)", DropIn.Name, ClusterAPI.Name, "Cluster API ÷ ours"}}
	if cache != nil {
		t.Header = append(t.Header, DropInCache.Name)
	}
	// value is a run's total for the hook, and whether it compares: not
	// when an event of the run was not done.
	value := func(r *RunResult, hook string) (float64, string, bool) {
		if r == nil {
			return 0, "n/a", false
		}
		total := TotalOf(r).Event("total")
		if total == nil {
			return 0, "n/a", false
		}
		v := total.Requests[hook]
		return v, marked(integer(v), total.NotDone), !total.NotDone
	}
	for _, h := range lifecycleHooks(results) {
		ov, o, okO := value(ours, h)
		cv, c, okC := value(capi, h)
		ratio := "n/a"
		if okO && okC {
			ratio = Ratio(cv, ov)
		}
		line := []string{h, o, c, ratio}
		if cache != nil {
			_, s, _ := value(cache, h)
			line = append(line, s)
		}
		t.Rows = append(t.Rows, line)
	}
	return t
}
