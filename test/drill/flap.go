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
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

// FlapOptions shape the flapping-extension drill.
type FlapOptions struct {
	// ClusterClasses share ExtensionConfigs round robin.
	ClusterClasses   int `json:"clusterClasses"`
	ExtensionConfigs int `json:"extensionConfigs"`
	// Duration is how long the extensions flap.
	Duration time.Duration `json:"duration"`
	// Phase is how long each fault profile lasts before the next one.
	Phase time.Duration `json:"phase"`
	// ChangeEvery bumps one ExtensionConfig's settings, so registrations
	// change (and extensions are called) while they flap.
	ChangeEvery time.Duration `json:"changeEvery"`
	// Window is the sampling period the rates are measured over.
	Window time.Duration `json:"window"`
	// Timeout bounds set-up and healing.
	Timeout time.Duration `json:"timeout"`
}

// DefaultFlapOptions: 100 ClusterClasses on 4 extensions flapping for 4
// minutes.
func DefaultFlapOptions() FlapOptions {
	return FlapOptions{ClusterClasses: 100, ExtensionConfigs: 4, Duration: 4 * time.Minute, Phase: 15 * time.Second,
		ChangeEvery: 10 * time.Second, Window: 10 * time.Second, Timeout: 3 * time.Minute}
}

// faultPhase is one fault profile of the flap.
type faultPhase struct {
	name   string
	faults sampleextension.Faults
}

// flapPhases cycle through every misbehaviour the sample extension knows,
// with healthy spells between, as a flapping extension does. Handlers
// advertise a 2 s timeout, so "slow" answers within it and "hang" does not.
var flapPhases = []faultPhase{
	{"mixed", sampleextension.Faults{ErrorRate: 0.3, TimeoutRate: 0.1, DropRate: 0.1, Delay: 100 * time.Millisecond}},
	{"healthy", sampleextension.Faults{}},
	{"http-500", sampleextension.Faults{ErrorRate: 1}},
	{"slow", sampleextension.Faults{Delay: 1500 * time.Millisecond}},
	{"hang", sampleextension.Faults{TimeoutRate: 1}},
	{"healthy", sampleextension.Faults{}},
	{"drop", sampleextension.Faults{DropRate: 1}},
	{"failure", sampleextension.Faults{FailureRate: 0.5, ErrorRate: 0.2}},
}

// Window is what one sampling period cost.
type Window struct {
	// At is the end of the window since the flap began.
	At time.Duration `json:"at"`
	// Phase names the fault profiles the window spans.
	Phase string `json:"phase"`
	// Reconciles and ReconcileErrors are ClusterClass reconciles.
	Reconciles      int64 `json:"reconciles"`
	ReconcileErrors int64 `json:"reconcileErrors"`
	// Enqueued are event-driven enqueues.
	Enqueued int64 `json:"enqueued"`
	// DiscoverVariablesCalls and DiscoveryCalls reached the extensions, as
	// the extensions counted them.
	DiscoverVariablesCalls int64 `json:"discoverVariablesCalls"`
	DiscoveryCalls         int64 `json:"discoveryCalls"`
	// Seconds is the window's length.
	Seconds float64 `json:"seconds"`
}

// FlapReport is what the flap drill measured.
type FlapReport struct {
	Options FlapOptions `json:"options"`
	Windows []Window    `json:"windows"`
	// Totals over the flap.
	Reconciles             int64 `json:"reconciles"`
	ReconcileErrors        int64 `json:"reconcileErrors"`
	Enqueued               int64 `json:"enqueued"`
	DiscoverVariablesCalls int64 `json:"discoverVariablesCalls"`
	DiscoveryCalls         int64 `json:"discoveryCalls"`
	// ReconcileBound is the most reconciles per-item exponential backoff
	// (controller-runtime's: 5 ms doubling) allows over the flap; see
	// backoffBound.
	ReconcileBound int64 `json:"reconcileBound"`
	// Changes is how many changes the drill made: ExtensionConfig settings
	// and ClusterClass patch settings, in turn.
	Changes int `json:"changes"`
	// Observed is how many ClusterClass states the guard checked; Losses
	// are those that dropped good variables.
	Observed int64  `json:"observed"`
	Losses   []Loss `json:"losses"`
	// Healed is how long all ClusterClasses took to publish the extensions'
	// new answer once the faults stopped.
	Healed time.Duration `json:"healed"`
	// ControllerPID stayed the same process throughout.
	ControllerPID int `json:"controllerPID"`
}

// Flap runs the flapping-extension drill: ClusterClasses converge on
// healthy extensions, the extensions then cycle through fault profiles while
// their registrations keep changing, and finally heal with a new answer.
func Flap(ctx context.Context, env Env, o FlapOptions) (*FlapReport, error) {
	// The drop-in discovers every ExtensionConfig again at each
	// --sync-period (the standalone's --rediscovery-interval), so Discovery
	// runs under every fault profile besides the drill's changes. The same
	// period resyncs every Cluster API controller; our ClusterClass
	// controller enqueues nothing on a resync, so the reconcile bound is
	// unchanged. Discovery calls time out after Cluster API's 10 s, which
	// no flag changes (the standalone's were cut to 2 s): a "hang" phase
	// holds a call up to 10 s, which the heal's timeout allows for.
	args := []string{"--sync-period=15s"}
	h, err := setUp(ctx, env, "flap", fixtureOptions{
		clusterClasses: o.ClusterClasses, extensionConfigs: o.ExtensionConfigs, namespaces: 4, handlerTimeout: 2,
	}, args, variablesV1, variablesV2)
	if err != nil {
		return nil, err
	}
	defer h.tearDown(context.WithoutCancel(ctx))
	if err := h.fixture.createClasses(ctx, h.client); err != nil {
		return nil, err
	}
	took, err := h.guard.waitConverged(ctx, o.Timeout, h.expectEverywhere(variablesV1))
	if err != nil {
		return nil, fmt.Errorf("before the flap: %w", err)
	}
	env.progress("flap: %d ClusterClasses converged in %s; flapping for %s", o.ClusterClasses, took.Round(time.Millisecond), o.Duration)

	report := &FlapReport{Options: o, ControllerPID: h.controller.PID()}
	before, err := h.sample(ctx)
	if err != nil {
		return nil, err
	}
	serverBefore := h.fixture.serverCalls()
	flapStart := time.Now()
	if err := flapFor(ctx, h, o, report, before, serverBefore); err != nil {
		return report, err
	}
	end, err := h.sample(ctx)
	if err != nil {
		return report, fmt.Errorf("after the flap: %w", err)
	}
	total := windowBetween(before, end, serverBefore, h.fixture.serverCalls())
	report.Reconciles, report.ReconcileErrors, report.Enqueued = total.Reconciles, total.ReconcileErrors, total.Enqueued
	report.DiscoverVariablesCalls, report.DiscoveryCalls = total.DiscoverVariablesCalls, total.DiscoveryCalls
	report.ReconcileBound = backoffBound(o.ClusterClasses, total, time.Since(flapStart))

	if report.Healed, err = healWithNewAnswer(ctx, h, o.Timeout); err != nil {
		return report, err
	}
	report.Observed, report.Losses = h.guard.Observed(), h.guard.Losses()
	if err := h.exitError(); err != nil {
		return report, err
	}
	env.progress("flap: healed in %s", report.Healed.Round(time.Millisecond))
	return report, nil
}

// flapFor cycles the extensions through the fault phases for o.Duration,
// makes a change every o.ChangeEvery, and records a window of figures
// every o.Window.
func flapFor(ctx context.Context, h *harness, o FlapOptions, report *FlapReport, before Sample, serverBefore serverCounts) error {
	flapStart := time.Now()
	previous, previousServer := before, serverBefore
	nextPhase, nextChange, nextWindow := flapStart, flapStart.Add(o.ChangeEvery), flapStart.Add(o.Window)
	phase := -1
	// phasesSeen names the fault profiles a window spans.
	var phasesSeen []string
	for now := time.Now(); now.Sub(flapStart) < o.Duration; now = time.Now() {
		if !now.Before(nextPhase) {
			phase = (phase + 1) % len(flapPhases)
			h.fixture.setFaults(flapPhases[phase].faults)
			phasesSeen = append(phasesSeen, flapPhases[phase].name)
			nextPhase = nextPhase.Add(o.Phase)
		}
		if !now.Before(nextChange) {
			if err := h.flapChange(ctx, report.Changes); err != nil {
				return err
			}
			report.Changes++
			nextChange = nextChange.Add(o.ChangeEvery)
		}
		if !now.Before(nextWindow) {
			s, err := h.sample(ctx)
			if err != nil {
				return fmt.Errorf("during the flap: %w", err)
			}
			server := h.fixture.serverCalls()
			w := windowBetween(previous, s, previousServer, server)
			w.At, w.Phase = now.Sub(flapStart), strings.Join(phasesSeen, "+")
			report.Windows = append(report.Windows, w)
			phasesSeen = []string{flapPhases[phase].name}
			previous, previousServer = s, server
			nextWindow = nextWindow.Add(o.Window)
		}
		if err := pause(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// healWithNewAnswer lifts every fault and has every extension answer
// variablesV2, announced by a registration change, so that convergence
// shows every ClusterClass called the healed extension. It returns how
// long convergence took.
func healWithNewAnswer(ctx context.Context, h *harness, timeout time.Duration) (time.Duration, error) {
	for i, e := range h.fixture.extensions {
		e.server.ResetFaults()
		e.server.SetVariables(sampleextension.DiscoverVariablesHandler, variablesV2)
		e.revision++
		if err := h.fixture.updateConfig(ctx, h.client, i); err != nil {
			return 0, err
		}
	}
	healed, err := h.guard.waitConverged(ctx, timeout, h.expectEverywhere(variablesV2))
	if err != nil {
		return 0, fmt.Errorf("after healing: %w", err)
	}
	return healed, nil
}

// flapChange makes the n-th change of the flap, alternating between the two
// things that make the controller call extensions: an ExtensionConfig
// change (Discovery, then DiscoverVariables if the registration changed)
// and new patch settings on one config's ClusterClasses (DiscoverVariables).
func (h *harness) flapChange(ctx context.Context, n int) error {
	f := h.fixture
	e := (n / 2) % len(f.extensions)
	if n%2 == 0 {
		f.extensions[e].revision++
		return f.updateConfig(ctx, h.client, e)
	}
	settings := map[string]string{"flavour": "flap-" + strconv.Itoa(n)}
	for i, config := range f.classConfig {
		if config != e {
			continue
		}
		if err := f.setClassSettings(ctx, h.client, i, settings); err != nil {
			return err
		}
	}
	return nil
}

// backoffBound is the most reconciles that n ClusterClasses can cost over d
// when every failure is retried with per-item exponential backoff from
// firstRetry: each event-driven enqueue, plus, per run of consecutive
// failures of one ClusterClass (a run starts at the beginning or after a
// success, so there are at most n + successes runs), at most
// floor(log2(d / firstRetry)) + 2 attempts. A retry loop without backoff
// grows with d; this grows with its logarithm.
func backoffBound(n int, w Window, d time.Duration) int64 {
	const firstRetry = 5 * time.Millisecond
	successes := w.Reconciles - w.ReconcileErrors
	perRun := int64(math.Floor(math.Log2(float64(d)/float64(firstRetry)))) + 2
	return w.Enqueued + (int64(n)+successes)*perRun
}

// windowBetween is what happened between two samples and two server counts.
func windowBetween(from, to Sample, serverFrom, serverTo serverCounts) Window {
	return Window{
		Reconciles:             to.Reconciles - from.Reconciles,
		ReconcileErrors:        to.ReconcileErrors - from.ReconcileErrors,
		Enqueued:               to.Enqueued - from.Enqueued,
		DiscoverVariablesCalls: serverTo.discoverVariables - serverFrom.discoverVariables,
		DiscoveryCalls:         serverTo.discovery - serverFrom.discovery,
		Seconds:                (to.At - from.At).Seconds(),
	}
}

// serverCounts are the calls the extensions themselves counted.
type serverCounts struct{ discoverVariables, discovery int64 }

func (f *fixture) serverCalls() serverCounts {
	var c serverCounts
	for _, e := range f.extensions {
		calls := e.server.Calls()
		c.discoverVariables += calls["DiscoverVariables/"+sampleextension.DiscoverVariablesHandler]
		c.discovery += calls["Discovery"]
	}
	return c
}

// setFaults gives every extension the same faults on every call.
func (f *fixture) setFaults(faults sampleextension.Faults) {
	for _, e := range f.extensions {
		e.server.SetFaults("", faults)
	}
}

// rate formats n per second over seconds.
func rate(n int64, seconds float64) string {
	if seconds <= 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(n)/seconds, 'f', 1, 64) + "/s"
}
