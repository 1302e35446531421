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
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/quiet"
)

// LeaderChange is what a leader change at scale cost. With every Cluster
// Available and a second replica standing by, the leader is killed with
// SIGKILL and started again at once, as kubelet restarts a container, and
// one more Cluster is created right after the kill.
type LeaderChange struct {
	// NewLeader is the log of the replica that took the lead: the one
	// standing by, or the killed one restarted.
	NewLeader string `json:"newLeader"`
	// ToLead is from the kill until a replica leads, and ToCreate until
	// the takeover's Cluster was accepted (the core manager's webhooks
	// are down until the killed replica is back on their port).
	ToLead   time.Duration `json:"toLead"`
	ToCreate time.Duration `json:"toCreate"`
	// ToQuiet is from the takeover until the new leader's Controllers and
	// the extension were first quiet for Options.Quiet; NotQuiet is set
	// when they never were within Window.
	ToQuiet  time.Duration `json:"toQuiet"`
	NotQuiet bool          `json:"notQuiet,omitempty"`
	// ToAvailable is from the kill until the takeover's Cluster is
	// Available; zero when it was not within Window.
	ToAvailable time.Duration `json:"toAvailable"`
	// Window is how long after the takeover Counters run.
	Window time.Duration `json:"window"`
	// RequestsToQuiet are the extension's requests from the takeover
	// until ToQuiet.
	RequestsToQuiet map[string]float64 `json:"requestsToQuiet"`
	// Counters are the window's: the new leader's reconciles, CPU and
	// peak RSS, the extension's requests, every process's CPU.
	Counters
}

// makesLeaderChange tells whether this run makes a leader change.
func (r *run) makesLeaderChange() bool {
	return r.o.LeaderElection && r.o.makes(EventLeaderChange) && slices.Contains(r.o.LeaderChangeLatencies, r.result.Latency)
}

// leaderChange makes the leader change and counts Window after the
// takeover.
func (r *run) leaderChange(ctx context.Context) error {
	r.progress("starting a second core manager, which stands by")
	if err := r.mgmt.StartCoreReplica(ctx); err != nil {
		return err
	}
	killed, err := r.mgmt.KillCoreLeader()
	if err != nil {
		return err
	}
	r.progress("killed the leader")
	created := make(chan error, 1)
	var createdAt time.Time
	go func() {
		err := r.createTakeoverCluster(ctx)
		createdAt = time.Now()
		created <- err
	}()
	if err := r.mgmt.RestartKilledCore(ctx); err != nil {
		return err
	}
	led, err := r.mgmt.AwaitCoreLeader(ctx, 2*time.Minute)
	if err != nil {
		return err
	}
	// The window's counts start at the takeover.
	before, err := r.reader.read(ctx)
	if err != nil {
		return err
	}
	lc := &LeaderChange{
		NewLeader: r.mgmt.CoreName(),
		ToLead:    led.Sub(killed), Window: r.o.LeaderChangeWindow,
	}
	if err := <-created; err != nil {
		return fmt.Errorf("create %s after the kill: %w", TakeoverClusterName, err)
	}
	r.takeoverCreated, lc.ToCreate = true, createdAt.Sub(killed)
	r.progress(fmt.Sprintf("%s leads %s after the kill; counting for %s", lc.NewLeader, lc.ToLead.Round(100*time.Millisecond), lc.Window))
	if err := r.countWindow(ctx, led, killed, before, lc); err != nil {
		return err
	}
	after, err := r.reader.read(ctx)
	if err != nil {
		return err
	}
	lc.Counters = after.Sub(before)
	r.result.LeaderChange = lc
	r.progress(fmt.Sprintf("leader change: quiet after %s, the new Cluster Available %s after the kill, %v extension requests",
		lc.ToQuiet.Round(time.Second), lc.ToAvailable.Round(time.Second), lc.Requests))
	return nil
}

// countWindow polls until Window after the takeover: when the new leader
// and the extension are first quiet, and when the takeover's Cluster is
// Available.
func (r *run) countWindow(ctx context.Context, led, killed time.Time, before Counters, lc *LeaderChange) error {
	activity, lastChange := before.activity(), led
	requestsAtChange := before.Requests
	lc.NotQuiet = true
	for end := led.Add(lc.Window); time.Now().Before(end); {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollInterval):
		}
		if err := r.mgmt.Exited(); err != nil {
			return err
		}
		now, err := r.reader.scrape(ctx)
		if err != nil {
			return err
		}
		if a := now.activity(); a != activity {
			activity, lastChange, requestsAtChange = a, time.Now(), now.Requests
		}
		if lc.NotQuiet && time.Since(lastChange) >= r.o.Quiet {
			lc.NotQuiet, lc.ToQuiet = false, lastChange.Sub(led)
			lc.RequestsToQuiet = subMap(requestsAtChange, before.Requests)
		}
		if lc.ToAvailable == 0 {
			if ok, _, err := r.available(ctx, TakeoverClusterName, ""); err != nil {
				return err
			} else if ok {
				lc.ToAvailable = time.Since(killed)
			}
		}
	}
	if lc.NotQuiet {
		lc.ToQuiet = lc.Window
	}
	return nil
}

// createTakeoverCluster creates the takeover's Cluster as soon as the core
// manager's webhooks take it, for up to two minutes.
func (r *run) createTakeoverCluster(ctx context.Context) error {
	var refused error
	// Tried every 500 ms: the time to the Cluster accepted is measured in
	// tenths.
	_, _, err := quiet.Wait(ctx, quiet.Options{Timeout: 2 * time.Minute, Interval: 500 * time.Millisecond}, quiet.Equal[bool],
		func() (bool, bool, error) {
			refused = r.c.Create(ctx, r.w.Takeover.DeepCopy())
			accepted := refused == nil || apierrors.IsAlreadyExists(refused)
			return accepted, accepted, nil
		})
	if errors.Is(err, quiet.ErrTimeout) {
		return refused
	}
	return err
}

// LeaderChangeTable is the leader change side by side: the drop-in,
// Cluster API's manager, Cluster API ÷ ours, and the drop-in with the
// cache when it ran.
func LeaderChangeTable(results []*RunResult) Table {
	ours, capi, cache := columns(results)
	t := Table{Header: []string{EventLeaderChange, DropIn.Name, ClusterAPI.Name, "Cluster API ÷ ours"}}
	if cache != nil {
		t.Header = append(t.Header, DropInCache.Name)
	}
	type lcRow struct {
		label  string
		value  func(*LeaderChange) float64
		format func(float64) string
		// cacheOnly rows mean nothing for a manager without the response
		// cache: it makes every request again.
		cacheOnly bool
	}
	rows := []lcRow{
		{label: "kill to a new leader", value: func(l *LeaderChange) float64 { return l.ToLead.Seconds() }, format: tenths},
		{label: "kill to the new Cluster accepted (webhooks back)", value: func(l *LeaderChange) float64 { return l.ToCreate.Seconds() }, format: tenths},
		{label: "takeover to the new leader quiet", value: func(l *LeaderChange) float64 { return l.ToQuiet.Seconds() }, format: seconds},
		{label: "kill to the new Cluster Available", value: func(l *LeaderChange) float64 { return l.ToAvailable.Seconds() }, format: seconds},
	}
	for _, hook := range leaderChangeHooks(results) {
		rows = append(rows, lcRow{label: "requests until quiet: " + hook, value: func(l *LeaderChange) float64 { return l.RequestsToQuiet[hook] }})
	}
	for _, hook := range leaderChangeHooks(results) {
		rows = append(rows, lcRow{label: "requests in the window: " + hook, value: func(l *LeaderChange) float64 { return l.Requests[hook] }})
	}
	rows = append(rows, lcRow{label: "extension busy seconds in the window", value: func(l *LeaderChange) float64 { return sum(l.ExtensionBusySeconds) }, format: oneDecimal})
	// A new leader's response cache starts empty: each miss is a distinct
	// request it had to make again, the cold cache's cost.
	for _, lookup := range leaderChangeLookups(results) {
		rows = append(rows, lcRow{label: "new leader's cache lookups: " + lookup, value: func(l *LeaderChange) float64 { return l.CacheLookups[lookup] }, cacheOnly: true})
	}
	for _, c := range Controllers {
		rows = append(rows, lcRow{label: "new leader's reconciles: " + c, value: func(l *LeaderChange) float64 { return l.Reconciles[c] }})
	}
	rows = append(rows,
		lcRow{label: "apiserver requests (core manager, both replicas)", value: func(l *LeaderChange) float64 { return float64(l.APIRequests) }},
		lcRow{label: "CPU seconds (new leader)", value: func(l *LeaderChange) float64 { return l.CPUSeconds }, format: oneDecimal},
		lcRow{label: "peak RSS MiB (new leader, VmHWM)", value: func(l *LeaderChange) float64 { return float64(l.PeakRSSBytes) / (1 << 20) }},
		lcRow{label: "machine CPU busy (of all cores)", value: func(l *LeaderChange) float64 { return busyShare(l.Counters) }, format: percent},
	)
	// A cell's bool tells whether its value compares: a time that did
	// not happen within the window does not.
	cell := func(r *RunResult, rw lcRow) (string, float64, bool) {
		if r == nil || r.LeaderChange == nil || rw.cacheOnly && r.LeaderChange.CacheLookups == nil {
			return "n/a", 0, false
		}
		format := rw.format
		if format == nil {
			format = integer
		}
		v := rw.value(r.LeaderChange)
		s := format(v)
		switch {
		case rw.label == "takeover to the new leader quiet" && r.LeaderChange.NotQuiet:
			return "not within " + s, v, false
		case strings.HasPrefix(rw.label, "requests until quiet") && r.LeaderChange.NotQuiet:
			return "not quiet", v, false
		case rw.label == "kill to the new Cluster Available" && v == 0:
			return "not within the window", v, false
		}
		return s, v, true
	}
	t.Rows = append(t.Rows, []string{"new leader", leaderName(ours), leaderName(capi), ""})
	if cache != nil {
		t.Rows[0] = append(t.Rows[0], leaderName(cache))
	}
	for _, rw := range rows {
		o, ov, okO := cell(ours, rw)
		c, cv, okC := cell(capi, rw)
		ratio := "n/a"
		if okO && okC {
			ratio = Ratio(cv, ov)
		}
		line := []string{rw.label, o, c, ratio}
		if cache != nil {
			s, _, _ := cell(cache, rw)
			line = append(line, s)
		}
		t.Rows = append(t.Rows, line)
	}
	return t
}

// tenths prints seconds to a tenth.
func tenths(v float64) string { return fmt.Sprintf("%.1fs", v) }

// leaderName says which replica took the lead.
func leaderName(r *RunResult) string {
	if r == nil || r.LeaderChange == nil {
		return "n/a"
	}
	if strings.Contains(r.LeaderChange.NewLeader, "restarted") {
		return "the killed one, restarted"
	}
	return "the standby"
}

// leaderChangeLookups are the response cache lookups (hook/result) any
// new leader made in its window.
func leaderChangeLookups(results []*RunResult) []string {
	seen := map[string]bool{}
	for _, r := range results {
		if r.LeaderChange != nil {
			for lookup := range r.LeaderChange.CacheLookups {
				seen[lookup] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// leaderChangeHooks are the hooks requested in any run's window, the
// topology hooks first.
func leaderChangeHooks(results []*RunResult) []string {
	var windows []*RunResult
	for _, r := range results {
		if r.LeaderChange != nil {
			windows = append(windows, &RunResult{Variant: r.Variant, Events: []EventResult{{Name: EventLeaderChange, Counters: r.LeaderChange.Counters}}})
		}
	}
	return hooksSeen(windows, EventLeaderChange)
}
