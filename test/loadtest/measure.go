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
	"context"
	"errors"
	"time"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scanmapping"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/auditcount"
)

// event is one change to drive.
type event struct {
	name string
	// apply makes the change.
	apply func(ctx context.Context) (applied, error)
	// optimum returns the reconciles and calls the event should cost.
	optimum func() (reconciles, calls int)
	// optimumDiscovery is the Discovery calls it should cost (see
	// DiscoveryOptimumNote): none unless set.
	optimumDiscovery func() int
	// converged, when set, reports whether every affected ClusterClass
	// shows the change; the time to get there is measured.
	converged func(ctx context.Context) (bool, error)
	note      string
	// window, when set, makes the event last that long: it measures what
	// passing time costs.
	window time.Duration
}

// applied is what making an event's change took.
type applied struct {
	// writes are the API writes it took.
	writes int
	// scan is Cluster API's scan's account of those writes.
	scan scanCount
	// seen, when set, tells that the controller has seen the change
	// (beyond going idle), such as a Discovery it causes.
	seen func() (bool, error)
}

type scanCount struct{ enqueues, reconciles int }

func (s *scanCount) add(o scanCount) {
	s.enqueues += o.enqueues
	s.reconciles += o.reconciles
}

func (r *run) measure(ctx context.Context, e event) (Row, error) {
	enqueuedBefore := r.enqueued()
	reconcilesBefore := r.reconciles()
	callsBefore, discoveriesBefore := r.discoverVariablesCalls(), r.allDiscoveries()
	optimumReconciles, optimumCalls := e.optimum()
	optimumDiscovery := 0
	if e.optimumDiscovery != nil {
		optimumDiscovery = e.optimumDiscovery()
	}
	var auditMark auditcount.Mark
	if r.opts.Audit != nil {
		var err error
		if auditMark, err = r.opts.Audit.Mark(); err != nil {
			return Row{}, err
		}
	}

	started := time.Now()
	change, err := e.apply(ctx)
	if err != nil {
		return Row{}, err
	}
	if e.window > 0 {
		end := started.Add(e.window)
		change.seen = func() (bool, error) { return !time.Now().Before(end), nil }
	}
	seen := change.seen
	if seen == nil {
		seen = func() (bool, error) { return true, nil }
	}
	if e.window == 0 && optimumDiscovery > 0 {
		seen = r.discoveriesSeen(seen, discoveriesBefore, optimumDiscovery)
	}
	var convergence time.Duration
	notConverged := false
	if e.converged != nil {
		err := r.poll(ctx, "convergence", func() (bool, error) { return e.converged(ctx) }, false)
		switch {
		case errors.Is(err, errNotDone):
			// A controller may leave the change for a resync: that is a
			// result, not a failure of the run.
			notConverged = true
		case err != nil:
			return Row{}, err
		default:
			convergence = time.Since(started)
		}
	}
	if err := r.pollFor(ctx, "settle", seen, true, r.opts.Timeout+e.window); err != nil {
		return Row{}, err
	}
	// Stale statuses are a result to report, not a failure of the run.
	stale, err := r.staleClasses(ctx)
	if err != nil {
		return Row{}, err
	}
	calls := r.discoverVariablesCalls() - callsBefore
	row := Row{
		Event:             e.name,
		Events:            change.writes,
		Enqueues:          int(r.enqueued() - enqueuedBefore),
		Reconciles:        int(r.reconciles() - reconcilesBefore),
		Calls:             calls,
		DiscoveryCalls:    r.allDiscoveries() - discoveriesBefore,
		OptimumDiscovery:  optimumDiscovery,
		OptimumReconciles: optimumReconciles,
		OptimumCalls:      optimumCalls,
		ScanEnqueues:      change.scan.enqueues,
		ScanReconciles:    change.scan.reconciles,
		Convergence:       convergence,
		NotConverged:      notConverged,
		StaleAfter:        stale,
		Note:              e.note,
	}
	if e.window > 0 {
		row.Window = time.Since(started)
	}
	if r.opts.Audit != nil {
		counts, err := r.opts.Audit.Since(auditMark)
		if err != nil {
			return Row{}, err
		}
		own := counts[r.opts.ControllerUser]
		row.Requests, row.StatusWrites = &own.Requests, &own.ClusterClassStatusWrites
	}
	return row, nil
}

// discoveryGrace bounds how long an event's row waits for the Discovery
// calls its optimum expects once the rest of the change was seen.
const discoveryGrace = 30 * time.Second

// discoveriesSeen passes once seen does and the extensions have served
// want Discovery calls since before, or discoveryGrace after seen passed:
// a Discovery may land after the ClusterClasses go quiet, and a controller
// that makes fewer shows it in its row rather than failing the run.
func (r *run) discoveriesSeen(seen func() (bool, error), before int64, want int) func() (bool, error) {
	var deadline time.Time
	return func() (bool, error) {
		ok, err := seen()
		if err != nil || !ok {
			return ok, err
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(discoveryGrace)
		}
		return r.allDiscoveries()-before >= int64(want) || time.Now().After(deadline), nil
	}
}

// allDiscoveries counts the Discovery calls every extension served.
func (r *run) allDiscoveries() int64 {
	var total int64
	for i := range r.fixture.configs {
		total += r.discoveries(i)
	}
	return total
}

func (r *run) enqueued() float64 { return r.controller.Enqueues() }

// discoverVariablesCalls counts the DiscoverVariables calls the
// extensions served.
func (r *run) discoverVariablesCalls() int64 {
	var total int64
	for _, c := range r.fixture.configs {
		total += c.extension.Server.Calls()["DiscoverVariables/"+sampleextension.DiscoverVariablesHandler]
	}
	return total
}

func (r *run) discoveries(i int) int64 {
	return r.fixture.configs[i].extension.Server.Calls()["Discovery"]
}

// scanUpdate is the scan's account of one update event of config i.
func (r *run) scanUpdate(ctx context.Context, old, new *runtimev1.ExtensionConfig) (scanCount, error) {
	reader := r.scanCache
	if reader == nil {
		// Cluster API's rows, with or without the series, are its real
		// mapping.
		return scanCount{}, nil
	}
	before, err := scanmapping.Map(ctx, reader, old)
	if err != nil {
		return scanCount{}, err
	}
	after, err := scanmapping.Map(ctx, reader, new)
	if err != nil {
		return scanCount{}, err
	}
	distinct := map[string]bool{}
	for _, req := range append(before, after...) {
		distinct[req.String()] = true
	}
	return scanCount{enqueues: len(before) + len(after), reconciles: len(distinct)}, nil
}

func (r *run) getConfig(ctx context.Context, i int) (*runtimev1.ExtensionConfig, error) {
	ext := &runtimev1.ExtensionConfig{}
	err := r.client.Get(ctx, client.ObjectKey{Name: r.fixture.configs[i].name}, ext)
	return ext, err
}

// updateConfig applies mutate to config i and returns the scan's account.
func (r *run) updateConfig(ctx context.Context, i int, mutate func(*runtimev1.ExtensionConfig)) (scanCount, error) {
	old, err := r.getConfig(ctx, i)
	if err != nil {
		return scanCount{}, err
	}
	updated := old.DeepCopy()
	mutate(updated)
	if err := r.client.Update(ctx, updated); err != nil {
		return scanCount{}, err
	}
	return r.scanUpdate(ctx, old, updated)
}

// discoveredAgainUnderClusterAPI is discoveredAgain for Cluster API's
// manager, which runs Discovery on any update of the config, and nil for
// ours, which runs none for a change that cannot alter the answer: there
// is nothing to wait for beyond the quiet period.
func (r *run) discoveredAgainUnderClusterAPI(i int) func() (bool, error) {
	if !RunsClusterAPIExtensionConfigController(r.controller.Name()) {
		return nil
	}
	return r.discoveredAgain(i)
}

// discoveredAgain returns a check that config i ran Discovery since now.
func (r *run) discoveredAgain(i int) func() (bool, error) {
	base := r.discoveries(i)
	return func() (bool, error) { return r.discoveries(i) > base, nil }
}

// affected counts, for config i under a registration change, the admitted
// referencers and whether a call is needed.
func (r *run) affectedByRegistration(i int) (reconciles, calls int) {
	for _, cf := range r.fixture.referencers(i) {
		if r.fixture.admitted(i, r.fixture.namespaces[cf.namespace]) {
			reconciles++
		}
	}
	if reconciles > 0 {
		calls = 1
	}
	return reconciles, calls
}

// showsVariable reports whether every referencer of config i that can
// publish variables (all its references admit its namespace) publishes
// variable name.
func (r *run) showsVariable(ctx context.Context, i int, name string) (bool, error) {
	for _, cf := range r.fixture.referencers(i) {
		// A ClusterClass with any reference its namespace may not use
		// keeps its last good variables by design; it cannot show them.
		if !r.fixture.admittedEverywhere(cf) {
			continue
		}
		cc := &clusterv1.ClusterClass{}
		if err := r.client.Get(ctx, client.ObjectKey{Namespace: cf.namespace, Name: cf.name}, cc); err != nil {
			return false, err
		}
		found := false
		for _, v := range cc.Status.Variables {
			if v.Name == name {
				found = true
			}
		}
		if !found {
			return false, nil
		}
	}
	return true, nil
}
