package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scanmapping"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/auditcount"
)

// Options configure one run.
type Options struct {
	// Config reaches the control plane (the local one, usually).
	Config *rest.Config
	// Quiet is how long no reconcile may happen before an event counts as
	// settled.
	Quiet time.Duration
	// Timeout bounds the wait for any one step.
	Timeout time.Duration
	// Progress receives one line per step.
	Progress io.Writer
	// RolloutMaxAge is --variables-cache-max-age of the manager the
	// rollout events run under, restarted after the other events so the
	// refreshes it causes count in no other row (default 10s; negative
	// skips the rollout events).
	RolloutMaxAge time.Duration
	// IdlePeriod, when positive, restarts the controller after the events
	// with its periodic work every IdlePeriod (our rediscovery and
	// variables max age, Cluster API's sync period) and adds a row of what
	// one such period costs while nothing changes.
	IdlePeriod time.Duration
	// Controller is what is measured; nil runs ours in this process, with
	// the simulated scan of Cluster API's mapping beside it.
	Controller Controller
	// Audit, when set, is kube-apiserver's audit log, in which the
	// controller's requests are those of ControllerUser.
	Audit          *auditcount.Log
	ControllerUser string
}

// Row is the account of one event.
type Row struct {
	Event string `json:"event"`
	// Events is the number of API writes the event consisted of.
	Events int `json:"events"`
	// Enqueues, Reconciles and Calls are ours; Calls are DiscoverVariables
	// calls counted by the extensions.
	Enqueues   int   `json:"enqueues"`
	Reconciles int   `json:"reconciles"`
	Calls      int64 `json:"calls"`
	// OptimumReconciles are the ClusterClasses whose observable inputs
	// changed; OptimumCalls the distinct registrations among them whose
	// answer was not known yet.
	OptimumReconciles int `json:"optimumReconciles"`
	OptimumCalls      int `json:"optimumCalls"`
	// ScanEnqueues is what a simulation of Cluster API's scan mapping
	// enqueues for the same events (old and new object of each update);
	// ScanReconciles the distinct ClusterClasses per event, summed. The
	// simulation makes no calls: Cluster API caches DiscoverVariables
	// answers, so what its reconciles call is only known by running it.
	ScanEnqueues   int `json:"scanEnqueues"`
	ScanReconciles int `json:"scanReconciles"`
	// Convergence is the time from the change to every affected
	// ClusterClass's status showing it, when measured.
	Convergence time.Duration `json:"convergenceNanos,omitempty"`
	// Window, for the idle row, is how long it was measured: one period
	// of periodic work and a margin for its jitter.
	Window time.Duration `json:"windowNanos,omitempty"`
	// NotConverged says the event's change was not shown within the step
	// timeout (Cluster API's ClusterClasses may wait for a resync).
	NotConverged bool `json:"notConverged,omitempty"`
	// StaleAfter counts the ClusterClasses whose status, once the
	// controller went quiet after the event, is not what their objects
	// call for now (a controller that missed the event leaves them so
	// until something else reconciles them).
	StaleAfter int `json:"staleAfter"`
	// DiscoveryCalls are Discovery calls counted by the extensions.
	DiscoveryCalls int64 `json:"discoveryCalls"`
	// Requests and StatusWrites are what kube-apiserver's audit log
	// recorded of the controller's requests, all of them and its
	// ClusterClass status writes, when the run has one.
	Requests     *int `json:"requests,omitempty"`
	StatusWrites *int `json:"statusWrites,omitempty"`
	// Note says what the scan misses, when it does.
	Note string `json:"note,omitempty"`
	// RatiosToOurs, on a compared controller's rows, divide its counts by
	// ours for the same event.
	RatiosToOurs *Ratios `json:"ratiosToOurs,omitempty"`
}

// Ratios are one controller's counts over ours; a count ours did not have
// (zero) has no ratio.
type Ratios struct {
	Reconciles   *float64 `json:"reconciles,omitempty"`
	Calls        *float64 `json:"discoverVariablesCalls,omitempty"`
	StatusWrites *float64 `json:"statusWrites,omitempty"`
	Requests     *float64 `json:"requests,omitempty"`
}

// Result is one scenario's run.
type Result struct {
	// Controller names what was measured (NameOurs, NameCAPI).
	Controller string        `json:"controller,omitempty"`
	Scenario   Scenario      `json:"scenario"`
	Setup      time.Duration `json:"setupNanos"`
	Rows       []Row         `json:"rows"`
}

type run struct {
	opts       Options
	fixture    *fixture
	client     client.Client
	controller Controller
}

// reconciles counts the ClusterClass reconciles of the controller.
func (r *run) reconciles() int64 { return r.controller.Reconciles() }

// Run builds the scenario on the control plane, runs the controller
// in-process, drives every event and returns the accounts.
func Run(ctx context.Context, s Scenario, opts Options) (*Result, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if opts.Quiet == 0 {
		opts.Quiet = 2 * time.Second
	}
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Minute
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	if opts.RolloutMaxAge == 0 {
		opts.RolloutMaxAge = 10 * time.Second
	}
	if opts.Controller == nil {
		opts.Controller = &inProcess{config: opts.Config}
	}
	c, err := client.New(opts.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, err
	}
	f, err := newFixture(s, fmt.Sprintf("%s-%d", s.Name, time.Now().Unix()))
	if err != nil {
		return nil, err
	}
	defer f.stop()
	r := &run{opts: opts, fixture: f, client: c, controller: opts.Controller}
	defer r.cleanup(context.WithoutCancel(ctx))

	started := time.Now()
	r.progress("creating %d namespaces, %d ExtensionConfigs, %d ClusterClasses", s.Namespaces, s.ExtensionConfigs, s.ClusterClasses)
	if err := f.create(ctx, c); err != nil {
		return nil, err
	}
	if err := r.controller.Start(ctx, Periods{}); err != nil {
		return nil, err
	}
	defer r.controller.Stop()
	r.progress("waiting for every ClusterClass to publish its variables")
	if err := r.waitInitial(ctx); err != nil {
		return nil, err
	}
	result := &Result{Controller: r.controller.Name(), Scenario: s, Setup: time.Since(started)}
	if err := r.measureAll(ctx, result, r.events()); err != nil {
		return nil, err
	}
	if opts.IdlePeriod > 0 {
		r.progress("restarting the controller with its periodic work every %s for the idle event", opts.IdlePeriod)
		if err := r.restartManager(ctx, Periods{VariablesMaxAge: opts.IdlePeriod, Resync: opts.IdlePeriod}); err != nil {
			return nil, err
		}
		if err := r.measureAll(ctx, result, []event{r.idleEvent(opts.IdlePeriod)}); err != nil {
			return nil, err
		}
	}
	if opts.RolloutMaxAge < 0 {
		return result, nil
	}
	r.progress("restarting the controller with --variables-cache-max-age=%s for the rollout events", opts.RolloutMaxAge)
	if err := r.restartManager(ctx, Periods{VariablesMaxAge: opts.RolloutMaxAge}); err != nil {
		return nil, err
	}
	if err := r.measureAll(ctx, result, r.rolloutEvents()); err != nil {
		return nil, err
	}
	return result, nil
}

// measureAll drives events one after the other, adding a row for each.
func (r *run) measureAll(ctx context.Context, result *Result, events []event) error {
	for _, e := range events {
		r.progress("event: %s", e.name)
		row, err := r.measure(ctx, e)
		if err != nil {
			return fmt.Errorf("event %s: %w", e.name, err)
		}
		result.Rows = append(result.Rows, row)
	}
	return nil
}

func (r *run) progress(format string, args ...any) {
	fmt.Fprintf(r.opts.Progress, format+"\n", args...)
}

// restartManager stops the controller, starts a new one with maxAge and
// waits until it has reconciled every ClusterClass and gone idle.
func (r *run) restartManager(ctx context.Context, periods Periods) error {
	r.controller.Stop()
	base := r.reconciles()
	if err := r.controller.Start(ctx, periods); err != nil {
		return err
	}
	return r.poll(ctx, "reconcile after the restart", func() (bool, error) {
		return r.reconciles()-base >= int64(len(r.fixture.classes)), nil
	}, true)
}

// waitInitial waits until every ClusterClass has a VariablesReady
// condition for its generation, and the controller is idle.
func (r *run) waitInitial(ctx context.Context) error {
	return r.poll(ctx, "initial reconcile", func() (bool, error) {
		list := &clusterv1.ClusterClassList{}
		if err := r.client.List(ctx, list); err != nil {
			return false, err
		}
		want := map[string]bool{}
		for _, cf := range r.fixture.classes {
			want[cf.namespace+"/"+cf.name] = true
		}
		ready := 0
		for i := range list.Items {
			cc := &list.Items[i]
			if !want[cc.Namespace+"/"+cc.Name] {
				continue
			}
			c := meta.FindStatusCondition(cc.Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition)
			if c != nil && (c.Status == metav1.ConditionTrue || c.Reason == clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason) {
				ready++
			}
		}
		return ready == len(want), nil
	}, true)
}

// poll runs check until it passes and, when idle is set, until no
// reconcile happened for the quiet period after that.
func (r *run) poll(ctx context.Context, what string, check func() (bool, error), idle bool) error {
	return r.pollFor(ctx, what, check, idle, r.opts.Timeout)
}

// pollFor is poll with its own timeout.
func (r *run) pollFor(ctx context.Context, what string, check func() (bool, error), idle bool, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	lastCount, lastChange := r.reconciles(), time.Now()
	passed := false
	for {
		if !passed {
			ok, err := check()
			if err != nil {
				return err
			}
			passed = ok
		}
		if n := r.reconciles(); n != lastCount {
			lastCount, lastChange = n, time.Now()
		}
		if passed && (!idle || time.Since(lastChange) >= r.opts.Quiet) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %w within %s", what, errNotDone, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// errNotDone is a poll that ran out of time.
var errNotDone = errors.New("not done")

// event is one change to drive.
type event struct {
	name string
	// apply makes the change.
	apply func(ctx context.Context) (applied, error)
	// optimum returns the reconciles and calls the event should cost.
	optimum func() (reconciles, calls int)
	// converged, when set, reports whether every affected ClusterClass
	// shows the change; the time to get there is measured.
	converged func(ctx context.Context) (bool, error)
	note      string
	// window, when set, makes the event last that long: it measures what
	// passing time costs.
	window time.Duration
	// withoutIdleRefreshes leaves out of the row's calls the refreshes
	// that found an answer unchanged: the max age's own cost, which the
	// idle row accounts, paid again for every max age a slow event lasts.
	withoutIdleRefreshes bool
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
	_, idleBefore := r.controller.Refreshes()
	optimumReconciles, optimumCalls := e.optimum()
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
	var convergence time.Duration
	notConverged := false
	if e.converged != nil {
		err := r.poll(ctx, "convergence", func() (bool, error) { return e.converged(ctx) }, false)
		switch {
		case errors.Is(err, errNotDone) && !r.simulated():
			// A measured controller may leave the change for a resync:
			// that is a result, not a failure of the run.
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
	stale, err := r.staleClasses(ctx)
	switch {
	case err != nil:
		return Row{}, err
	case stale > 0 && r.simulated():
		// Ours in this process must leave every status right; a measured
		// process's stale statuses are a result to report.
		return Row{}, fmt.Errorf("%d ClusterClasses have a stale status once the controller went quiet", stale)
	}
	calls := r.discoverVariablesCalls() - callsBefore
	if e.withoutIdleRefreshes {
		_, idleAfter := r.controller.Refreshes()
		calls -= int64(idleAfter - idleBefore)
	}
	row := Row{
		Event:             e.name,
		Events:            change.writes,
		Enqueues:          int(r.enqueued() - enqueuedBefore),
		Reconciles:        int(r.reconciles() - reconcilesBefore),
		Calls:             calls,
		DiscoveryCalls:    r.allDiscoveries() - discoveriesBefore,
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

// simulated reports whether ours runs in this process, where the run's
// own expectations hold: an event that does not converge is then a failure.
func (r *run) simulated() bool {
	_, ok := r.controller.(*inProcess)
	return ok
}

// allDiscoveries counts the Discovery calls every extension served.
func (r *run) allDiscoveries() int64 {
	var total int64
	for i := range r.fixture.configs {
		total += r.discoveries(i)
	}
	return total
}

func (r *run) enqueued() float64 {
	total := 0.0
	for _, trigger := range []string{metrics.TriggerClusterClass, metrics.TriggerExtensionConfig, metrics.TriggerNamespace, metrics.TriggerRefresh} {
		total += testutil.ToFloat64(metrics.ClusterClassEnqueued.WithLabelValues(trigger))
	}
	return total
}

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
	simulated, ok := r.controller.(*inProcess)
	if !ok {
		// Only beside our controller in this process; measured
		// controllers have no simulation beside them.
		return scanCount{}, nil
	}
	reader := simulated.cache()
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

// cleanup deletes the scenario's ClusterClasses and ExtensionConfigs so the
// next scenario on the same control plane starts from its own objects
// (namespaces stay: only kube-controller-manager can finish deleting them).
func (r *run) cleanup(ctx context.Context) {
	for ns := range r.fixture.namespaces {
		_ = r.client.DeleteAllOf(ctx, &clusterv1.ClusterClass{}, client.InNamespace(ns))
	}
	for _, c := range r.fixture.configs {
		_ = r.client.Delete(ctx, &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: c.name}})
	}
}
