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

package loadtest

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteTable prints a result as an aligned table.
func WriteTable(w io.Writer, r *Result) error {
	s := r.Scenario
	fmt.Fprintf(w, "\nscenario %s: %d ClusterClasses, %d ExtensionConfigs (%.0f%% with a namespaceSelector), %d namespaces; set-up %s\n",
		s.Name, s.ClusterClasses, s.ExtensionConfigs, s.SelectorShare*100, s.Namespaces, r.Setup.Round(time.Millisecond))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "event\twrites\tenqueues\treconciles\tcalls\toptimum reconciles\toptimum calls\tDiscovery calls\toptimum Discovery\tsimulated scan enqueues\tsimulated scan reconciles\tconvergence\t")
	for _, row := range r.Rows {
		convergence := "-"
		if row.Convergence > 0 {
			convergence = row.Convergence.Round(time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", row.Event, row.Events, row.Enqueues, row.Reconciles, row.Calls,
			row.OptimumReconciles, row.OptimumCalls, row.DiscoveryCalls, row.OptimumDiscovery, row.ScanEnqueues, row.ScanReconciles, convergence)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, DiscoveryOptimumNote)
	for _, row := range r.Rows {
		if row.Note != "" {
			fmt.Fprintf(w, "note (%s): %s\n", row.Event, row.Note)
		}
	}
	return nil
}

// WriteJSON writes results to path.
func WriteJSON(path string, results []*Result) error {
	data, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// ReadJSON reads and concatenates results files named in a comma-separated
// list; an empty list reads nothing.
func ReadJSON(paths string) ([]*Result, error) {
	var all []*Result
	for _, path := range strings.Split(paths, ",") {
		if path = strings.TrimSpace(path); path == "" {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var results []*Result
		if err := json.Unmarshal(data, &results); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		all = append(all, results...)
	}
	return all, nil
}

// totals sums a result's rows.
func totals(r *Result) (reconciles, calls, scanReconciles int) {
	for _, row := range r.Rows {
		reconciles += row.Reconciles
		calls += int(row.Calls)
		scanReconciles += row.ScanReconciles
	}
	return
}

// point is one scenario size on the chart: our result, and Cluster API's
// when the run compared the two.
type point struct {
	n          int
	ours, capi *Result
}

// chartPoints pairs results by scenario size, smallest first. A size with
// only a Cluster API result is left out.
func chartPoints(results []*Result) []point {
	byN := map[int]*point{}
	for _, r := range results {
		n := r.Scenario.ClusterClasses
		if byN[n] == nil {
			byN[n] = &point{n: n}
		}
		switch r.Controller {
		case NameCAPI:
			byN[n].capi = r
		case NamePatched:
			// The chart draws ours beside Cluster API's release; the
			// patched manager's counts are in the table and results.json.
		default:
			byN[n].ours = r
		}
	}
	var points []point
	for _, p := range byN {
		if p.ours != nil {
			points = append(points, *p)
		}
	}
	sort.Slice(points, func(i, j int) bool { return points[i].n < points[j].n })
	// Cluster API's lines only where every size has its result.
	for _, p := range points {
		if p.capi == nil {
			for i := range points {
				points[i].capi = nil
			}
			break
		}
	}
	return points
}

// WriteSVG charts, against the number of ClusterClasses, the reconciles
// and extension calls all events cost, on a log scale: ours and the
// simulated scan's, or ours and Cluster API's when the results compare
// the two.
func WriteSVG(path string, results []*Result) error {
	const (
		width, height = 720, 420
		left, right   = 70, 200
		top, bottom   = 45, 50
	)
	type series struct {
		name, color, dash string
		value             func(point) int
	}
	points := chartPoints(results)
	all := []series{
		{"simulated scan reconciles", "#c0392b", "", func(p point) int { _, _, v := totals(p.ours); return v }},
		{"our reconciles", "#2471a3", "", func(p point) int { v, _, _ := totals(p.ours); return v }},
		{"our calls", "#2471a3", "6,4", func(p point) int { _, v, _ := totals(p.ours); return v }},
	}
	if len(points) > 0 && points[0].capi != nil {
		all[0] = series{"Cluster API reconciles", "#c0392b", "", func(p point) int { v, _, _ := totals(p.capi); return v }}
		all = append(all, series{"Cluster API calls", "#c0392b", "6,4", func(p point) int { _, v, _ := totals(p.capi); return v }})
	}
	maxN, maxV := 1, 1
	for _, p := range points {
		maxN = max(maxN, p.n)
		for _, s := range all {
			maxV = max(maxV, s.value(p))
		}
	}
	logScale := func(v, top float64) float64 {
		if v < 1 {
			v = 1
		}
		return math.Log10(v) / math.Log10(max(top, 10))
	}
	x := func(n int) float64 { return left + logScale(float64(n), float64(maxN))*(width-left-right) }
	y := func(v int) float64 {
		return height - bottom - logScale(float64(v)+1, float64(maxV)+1)*(height-top-bottom)
	}

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="14">Reconciles and extension calls for all events, by ClusterClasses (log scales)</text>`+"\n", left)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, height-bottom, width-right, height-bottom)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, top, left, height-bottom)
	for _, p := range points {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", x(p.n), height-bottom+18, p.n)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">ClusterClasses</text>`+"\n", (left+width-right)/2, height-10)
	for v := 1; v <= maxV*10; v *= 10 {
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%d</text>`+"\n", left-6, y(v)+4, v)
	}
	for i, s := range all {
		var line []string
		for _, p := range points {
			line = append(line, fmt.Sprintf("%.1f,%.1f", x(p.n), y(s.value(p))))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" stroke-dasharray="%s" points="%s"/>`+"\n", s.color, s.dash, strings.Join(line, " "))
		for _, p := range points {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", x(p.n), y(s.value(p)), s.color)
		}
		ly := top + 20 + i*20
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2" stroke-dasharray="%s"/>`+"\n", width-right+15, ly, width-right+45, ly, s.color, s.dash)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", width-right+50, ly+4, s.name)
	}
	b.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// WriteComparison writes one scenario's events side by side: ours, then
// each of others (Cluster API's manager, and Cluster API's with the patch
// series when it ran), and the optimum, with each other's count as a
// multiple of ours.
func WriteComparison(w io.Writer, ours *Result, others ...*Result) error {
	s := ours.Scenario
	fmt.Fprintf(w, "\nscenario %s: %d ClusterClasses, %d ExtensionConfigs (%.0f%% with a namespaceSelector), %d namespaces\n",
		s.Name, s.ClusterClasses, s.ExtensionConfigs, s.SelectorShare*100, s.Namespaces)
	names := []string{ours.Controller}
	columns := []string{"ours"}
	byEvent := make([]map[string]Row, len(others))
	for i, other := range others {
		names = append(names, other.Controller)
		columns = append(columns, shortName(other.Controller))
		byEvent[i] = map[string]Row{}
		for _, row := range other.Rows {
			byEvent[i][row.Event] = row
		}
	}
	fmt.Fprintf(w, "%s, each its own process on a fresh control plane, all with %s;\n", strings.Join(names, " against "), strings.Join(sharedFlags, " "))
	fmt.Fprintln(w, "requests and status writes counted in kube-apiserver's audit log. Cluster API v1.14.2 runs with PriorityQueue and")
	fmt.Fprintln(w, "ReconcilerRateLimiting on by default (at most one reconcile per second per object): they shape its counts and times.")
	if slices.Contains(names, NamePatched) {
		fmt.Fprintf(w, "%s: Cluster API's core manager built from its released source with the patch series in upstream/patches.\n", NamePatched)
	}
	fmt.Fprintln(w, "stale after: ClusterClasses whose status, once the controller went quiet, is not what their objects call for.")
	fmt.Fprintf(w, "%s.\n", DiscoveryOptimumNote)
	who := strings.Join(columns, "/")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "event\treconciles %[1]s (optimum)\tDiscoverVariables calls %[1]s (optimum)\tDiscovery calls %[1]s (optimum)\tstatus writes %[1]s\tapiserver requests %[1]s\tconvergence %[1]s\tstale after %[1]s\t\n", who)
	var notes []string
events:
	for _, o := range ours.Rows {
		rows := []Row{o}
		for i := range others {
			c, ok := byEvent[i][o.Event]
			if !ok {
				continue events
			}
			rows = append(rows, c)
		}
		column := func(value func(Row) int64) string {
			values := make([]int64, len(rows))
			for i, r := range rows {
				values[i] = value(r)
			}
			return counts(values[0], values[1:]...)
		}
		convergence, stale := make([]string, len(rows)), make([]string, len(rows))
		for i, r := range rows {
			convergence[i], stale[i] = convergenceOf(r), fmt.Sprint(r.StaleAfter)
		}
		fmt.Fprintf(tw, "%s\t%s (%d)\t%s (%d)\t%s (%d)\t%s\t%s\t%s\t%s\t\n", o.Event,
			column(func(r Row) int64 { return int64(r.Reconciles) }), o.OptimumReconciles,
			column(func(r Row) int64 { return r.Calls }), o.OptimumCalls,
			column(func(r Row) int64 { return r.DiscoveryCalls }), o.OptimumDiscovery,
			column(func(r Row) int64 { return deref(r.StatusWrites) }),
			column(func(r Row) int64 { return deref(r.Requests) }),
			strings.Join(convergence, " / "), strings.Join(stale, " / "))
		if o.Note != "" {
			notes = append(notes, o.Event+": "+o.Note)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintf(w, "  * %s\n", n)
	}
	return nil
}

// shortName is a manager's name in a comparison's column headers.
func shortName(controller string) string {
	switch controller {
	case NameCAPI:
		return "capi"
	case NamePatched:
		return "patched"
	default:
		return controller
	}
}

// SetRatios puts on each of other's rows its counts over ours for the
// same event, so that results.json carries the comparison the table shows.
func SetRatios(ours, other *Result) {
	byEvent := map[string]Row{}
	for _, row := range ours.Rows {
		byEvent[row.Event] = row
	}
	ratio := func(ours, other int64) *float64 {
		if ours == 0 {
			return nil
		}
		r := float64(other) / float64(ours)
		return &r
	}
	for i := range other.Rows {
		o, ok := byEvent[other.Rows[i].Event]
		if !ok {
			continue
		}
		c := other.Rows[i]
		other.Rows[i].RatiosToOurs = &Ratios{
			Reconciles:   ratio(int64(o.Reconciles), int64(c.Reconciles)),
			Calls:        ratio(o.Calls, c.Calls),
			StatusWrites: ratio(deref(o.StatusWrites), deref(c.StatusWrites)),
			Requests:     ratio(deref(o.Requests), deref(c.Requests)),
		}
	}
}

// counts is "ours / other / ...", with each other count as a multiple of
// ours where they differ.
func counts(ours int64, others ...int64) string {
	values := []string{strconv.FormatInt(ours, 10)}
	var ratios []string
	differ := false
	for _, other := range others {
		values = append(values, strconv.FormatInt(other, 10))
		switch {
		case other == ours:
			ratios = append(ratios, "=")
		case ours == 0:
			differ = true
			ratios = append(ratios, "ours none")
		case other == 0:
			differ = true
			ratios = append(ratios, "none")
		default:
			differ = true
			ratios = append(ratios, fmt.Sprintf("x%.1f", float64(other)/float64(ours)))
		}
	}
	if !differ {
		return strings.Join(values, " / ")
	}
	return fmt.Sprintf("%s (%s)", strings.Join(values, " / "), strings.Join(ratios, ", "))
}

func deref(p *int) int64 {
	if p == nil {
		return 0
	}
	return int64(*p)
}

func convergenceOf(r Row) string {
	switch {
	case r.NotConverged:
		return "not converged"
	case r.Convergence > 0:
		return r.Convergence.Round(time.Millisecond).String()
	default:
		return "-"
	}
}
