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
	"strings"
	"time"
)

// PropertyEvent is one change the drill made, with what it could cost.
type PropertyEvent struct {
	Round  int    `json:"round"`
	Kind   string `json:"kind"`
	Target string `json:"target"`
	// OptimumReconciles are the ClusterClasses the event could change;
	// OptimumCalls the distinct DiscoverVariables requests whose answer
	// it could change. For an event about a config, the controller acts on
	// whoever uses the config when it gets there, so these count every
	// ClusterClass and request in its scope at any point from the event
	// to the end of the round.
	OptimumReconciles int `json:"optimumReconciles"`
	OptimumCalls      int `json:"optimumCalls"`
	// DiscoveryFails says the Discovery of the config the event is about
	// fails once the event is made.
	DiscoveryFails bool `json:"discoveryFails,omitempty"`
}

// PropertyRound is the account of one round: its events, what the
// controller did until it was quiet, and the fresh controller's check.
type PropertyRound struct {
	Round  int `json:"round"`
	Events int `json:"events"`
	// FailureRound says the round was drawn as a failure round (see
	// PropertyOptions.FailureRoundEvery); FailingConfigs are the configs
	// whose Discovery failed at its end.
	FailureRound   bool `json:"failureRound,omitempty"`
	FailingConfigs int  `json:"failingConfigs"`
	// Reconciles are the ClusterClass reconciles that succeeded; failed
	// ones (ReconcileErrors) are retried, so the retry does the work.
	Reconciles      int64 `json:"reconciles"`
	ReconcileErrors int64 `json:"reconcileErrors"`
	// Calls are DiscoverVariables calls that reached an extension, less
	// the refreshes that found an answer unchanged (IdleRefreshes): those
	// are the cost of the max age, paid whatever the events.
	Calls         int64 `json:"calls"`
	IdleRefreshes int64 `json:"idleRefreshes"`
	// ChangedRefreshes and FailedRefreshes are the refreshes that found a
	// new answer or an error; they are among Calls.
	ChangedRefreshes int64 `json:"changedRefreshes"`
	FailedRefreshes  int64 `json:"failedRefreshes"`
	// ReconcileBound and CallBound sum the round's events' optima.
	ReconcileBound int `json:"reconcileBound"`
	CallBound      int `json:"callBound"`
	// Settled is the time from the last event until the controller was quiet.
	Settled time.Duration `json:"settled"`
	// ModelMismatches are the ExtensionConfigs whose status differed from
	// the model's once the round settled.
	ModelMismatches []string `json:"modelMismatches,omitempty"`
	// FreshWrites are the objects a freshly started controller changed.
	FreshWrites []string `json:"freshWrites,omitempty"`
}

// PropertyReport is what the property drill saw.
type PropertyReport struct {
	Options PropertyOptions `json:"options"`
	// Kinds counts the events by kind; WhileFailing those made to a config
	// whose Discovery failed.
	Kinds        map[string]int  `json:"kinds"`
	WhileFailing map[string]int  `json:"whileFailing"`
	Events       []PropertyEvent `json:"events"`
	Rounds       []PropertyRound `json:"rounds"`
	Checks       int             `json:"checks"`
	Totals       PropertyRound   `json:"totals"`
}

func (t *PropertyRound) add(r PropertyRound) {
	t.Events += r.Events
	t.Reconciles += r.Reconciles
	t.ReconcileErrors += r.ReconcileErrors
	t.Calls += r.Calls
	t.IdleRefreshes += r.IdleRefreshes
	t.ReconcileBound += r.ReconcileBound
	t.CallBound += r.CallBound
	t.Settled = max(t.Settled, r.Settled)
	t.ModelMismatches = append(t.ModelMismatches, r.ModelMismatches...)
	t.FreshWrites = append(t.FreshWrites, r.FreshWrites...)
}

// Problems lists the rounds that broke a property.
func (r *PropertyReport) Problems() []string {
	var p []string
	for _, rd := range r.Rounds {
		if rd.Reconciles > int64(rd.ReconcileBound) {
			p = append(p, fmt.Sprintf("seed %d, round %d: %d reconciles, above the events' optimum of %d (events: %s)",
				r.Options.Seed, rd.Round, rd.Reconciles, rd.ReconcileBound, r.eventsOf(rd.Round)))
		}
		if rd.Calls > int64(rd.CallBound) {
			p = append(p, fmt.Sprintf("seed %d, round %d: %d DiscoverVariables calls, above the %d distinct requests the events could change (events: %s)",
				r.Options.Seed, rd.Round, rd.Calls, rd.CallBound, r.eventsOf(rd.Round)))
		}
	}
	for _, m := range r.Totals.ModelMismatches {
		p = append(p, fmt.Sprintf("seed %d: %s", r.Options.Seed, m))
	}
	for _, w := range r.Totals.FreshWrites {
		p = append(p, fmt.Sprintf("seed %d: %s", r.Options.Seed, w))
	}
	if r.Checks == 0 {
		p = append(p, "no fresh controller ever checked the statuses")
	}
	return p
}

// eventsOf describes a round's events, so a round above its bound can be
// told from the test's output alone.
func (r *PropertyReport) eventsOf(round int) string {
	var out []string
	for _, e := range r.Events {
		if e.Round == round {
			out = append(out, fmt.Sprintf("%s %s, optimum %d/%d, Discovery failing: %t",
				e.Kind, e.Target, e.OptimumReconciles, e.OptimumCalls, e.DiscoveryFails))
		}
	}
	return strings.Join(out, "; ")
}
