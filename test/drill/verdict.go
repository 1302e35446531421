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

package drill

import (
	"fmt"
	"time"
)

// Problems lists what the flap drill's figures say went wrong: nothing,
// when the controller backed off, kept every good status and called each
// extension at most once per reconcile.
func (r *FlapReport) Problems() []string {
	var p []string
	p = append(p, lossProblems(r.Losses)...)
	if r.Observed < int64(r.Options.ClusterClasses) {
		p = append(p, fmt.Sprintf("the guard checked %d states, fewer than there are ClusterClasses", r.Observed))
	}
	if r.ReconcileErrors == 0 || r.DiscoverVariablesCalls == 0 {
		p = append(p, fmt.Sprintf("the flap caused %d failed reconciles and %d calls: the faults never reached the controller", r.ReconcileErrors, r.DiscoverVariablesCalls))
	}
	if r.Reconciles > r.ReconcileBound {
		p = append(p, fmt.Sprintf("%d reconciles, more than exponential backoff allows (%d): retries are not backed off", r.Reconciles, r.ReconcileBound))
	}
	if r.DiscoverVariablesCalls > r.Reconciles {
		p = append(p, fmt.Sprintf("%d DiscoverVariables calls for %d reconciles of ClusterClasses with one patch each", r.DiscoverVariablesCalls, r.Reconciles))
	}
	return p
}

// Problems lists what the restart drill's figures say went wrong.
func (r *RestartReport) Problems() []string {
	p := lossProblems(r.Losses)
	if r.ConvergedAtStop >= r.Options.ClusterClasses {
		p = append(p, "every ClusterClass had converged before the outage: it interrupted no reconcile")
	}
	if r.AliveChecks == 0 {
		p = append(p, "the controller was never checked during the outage")
	}
	return p
}

// maxSoakGrowth is how much the mean of the last third of soak samples may
// exceed the first third's before memory or goroutines count as growing.
const maxSoakGrowth = 0.2

// minRSSTrend is the shortest soak whose RSS trend means anything: before
// that, the heap is still finding its size (seen here: +10% in a 40 s soak
// under the race detector, +4% over 10 minutes without it).
const minRSSTrend = 5 * time.Minute

// Problems lists what the soak's figures say went wrong.
func (r *SoakReport) Problems() []string {
	p := lossProblems(r.Losses)
	for _, kind := range soakChanges {
		if r.Changes[kind] == 0 {
			p = append(p, fmt.Sprintf("the soak made no %s change", kind))
		}
	}
	if bound := r.CacheBound; bound > 0 && r.CacheEntriesMax > bound {
		p = append(p, fmt.Sprintf("the call cache held %d entries, over its bound %d", r.CacheEntriesMax, bound))
	}
	if r.Goroutines.Growth > maxSoakGrowth {
		p = append(p, fmt.Sprintf("goroutines grew %.0f%% over the soak (%d to %d)", 100*r.Goroutines.Growth, r.Goroutines.First, r.Goroutines.Last))
	}
	if r.Options.Duration >= minRSSTrend && r.RSS.Growth > maxSoakGrowth {
		p = append(p, fmt.Sprintf("RSS grew %.0f%% over the soak (%.1f to %.1f MiB)", 100*r.RSS.Growth, mib(r.RSS.First), mib(r.RSS.Last)))
	}
	return p
}

func lossProblems(l []Loss) []string {
	if len(l) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d ClusterClasses lost good variables%s", len(l), losses(l))}
}
