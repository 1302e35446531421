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
	"math"
	"strings"
)

// chartBar is one run's value for one event.
type chartBar struct {
	variant string
	latency string
	value   float64
}

// chartGroup is one event's bars, in the results' order.
type chartGroup struct {
	event string
	bars  []chartBar
}

// chartMeasure is one panel of the chart: a value of each event.
type chartMeasure struct {
	title string
	unit  func(float64) string
	value func(EventResult) float64
	// leaderChange reads the leader change's window.
	leaderChange func(*LeaderChange) float64
}

var chartMeasures = []chartMeasure{
	{
		title: "Wall time to quiet (leader change: takeover to quiet)", unit: seconds,
		value:        func(e EventResult) float64 { return e.ToQuiet.Seconds() },
		leaderChange: func(l *LeaderChange) float64 { return l.ToQuiet.Seconds() },
	},
	{
		title: "Extension requests, all hooks (leader change: the window)", unit: integer,
		value:        func(e EventResult) float64 { return sum(e.Requests) },
		leaderChange: func(l *LeaderChange) float64 { return sum(l.Requests) },
	},
}

// chartGroups are the bars of one measure: an event's group holds every
// run that made it, latencies in turn, the variants in the results'
// order.
func chartGroups(results []*RunResult, m chartMeasure) []chartGroup {
	var groups []chartGroup
	for _, event := range Events {
		g := chartGroup{event: event}
		for _, lg := range ByLatency(results) {
			for _, r := range lg.Results {
				switch e := r.Event(event); {
				case e != nil && e.NotDone:
					// A change not done by its deadline has no wall time
					// to draw; its table says how far it got.
				case e != nil:
					g.bars = append(g.bars, chartBar{variant: r.Variant, latency: latencyName(r.Latency), value: m.value(*e)})
				case event == EventLeaderChange && r.LeaderChange != nil:
					g.bars = append(g.bars, chartBar{variant: r.Variant, latency: latencyName(r.Latency), value: m.leaderChange(r.LeaderChange)})
				}
			}
		}
		if len(g.bars) > 0 {
			groups = append(groups, g)
		}
	}
	return groups
}

// variantColors tells the managers apart; a latency of 0 is drawn paler.
var variantColors = map[string]string{DropIn.Name: "#2471a3", ClusterAPI.Name: "#c0392b", DropInCache.Name: "#1e8449"}

// WriteChart draws, as SVG, a panel per measure (wall time, extension
// requests) with a group of bars per event: each manager at each latency.
func WriteChart(w io.Writer, results []*RunResult) error {
	const (
		width, panelHeight = 900, 300
		left, right        = 80, 190
		top, bottom        = 40, 45
	)
	var b strings.Builder
	height := panelHeight * len(chartMeasures)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	for i, m := range chartMeasures {
		groups := chartGroups(results, m)
		y0 := float64(i * panelHeight)
		plotTop, plotBottom := y0+top, y0+panelHeight-bottom
		maxV := 1.0
		for _, g := range groups {
			for _, bar := range g.bars {
				maxV = math.Max(maxV, bar.value)
			}
		}
		fmt.Fprintf(&b, `<text x="%d" y="%.0f" font-size="14">%s</text>`+"\n", left, y0+22, m.title)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="black"/>`+"\n", left, plotBottom, width-right, plotBottom)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="black"/>`+"\n", left, plotTop, left, plotBottom)
		for _, f := range []float64{0, 0.5, 1} {
			yy := plotBottom - f*(plotBottom-plotTop)
			fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, yy+4, m.unit(f*maxV))
		}
		if len(groups) == 0 {
			continue
		}
		groupWidth := float64(width-left-right) / float64(len(groups))
		for gi, g := range groups {
			barWidth := (groupWidth - 16) / float64(len(g.bars))
			x0 := float64(left) + float64(gi)*groupWidth + 8
			for bi, bar := range g.bars {
				h := bar.value / maxV * (plotBottom - plotTop)
				opacity := "1"
				if bar.latency == latencyName(0) {
					opacity = "0.45"
				}
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="%s"><title>%s, %s, %s: %s</title></rect>`+"\n",
					x0+float64(bi)*barWidth, plotBottom-h, barWidth-1, h, variantColors[bar.variant], opacity, g.event, bar.variant, bar.latency, m.unit(bar.value))
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x0+(groupWidth-16)/2, plotBottom+16, g.event)
		}
		ly := plotTop + 10
		for _, lg := range ByLatency(results) {
			for _, r := range lg.Results {
				opacity := "1"
				if lg.Latency == 0 {
					opacity = "0.45"
				}
				fmt.Fprintf(&b, `<rect x="%d" y="%.1f" width="14" height="10" fill="%s" fill-opacity="%s"/>`+"\n", width-right+12, ly-9, variantColors[r.Variant], opacity)
				fmt.Fprintf(&b, `<text x="%d" y="%.1f">%s, %s</text>`+"\n", width-right+32, ly, r.Variant, latencyName(lg.Latency))
				ly += 18
			}
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
