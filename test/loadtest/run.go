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
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/quiet"
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
	// IdlePeriod, when positive, restarts the controller after the events
	// with its periodic work every IdlePeriod (--sync-period, also the
	// drop-in's re-discovery period) and adds a row of what one such
	// period costs while nothing changes.
	IdlePeriod time.Duration
	// Controller is what is measured: the drop-in or Cluster API's
	// manager, as a process. Beside any but Cluster API's, the run counts
	// what Cluster API's scan mapping would enqueue for the same events.
	Controller Controller
	// Audit, when set, is kube-apiserver's audit log, in which the
	// controller's requests are those of ControllerUser.
	Audit          *auditcount.Log
	ControllerUser string
}

type run struct {
	opts       Options
	fixture    *fixture
	client     client.Client
	controller Controller
	// scanCache is what the simulated scan reads, nil beside Cluster
	// API's own manager, with or without the patch series: their rows
	// count their own mapping.
	scanCache client.Reader
}

// reconciles counts the ClusterClass reconciles of the controller.
func (r *run) reconciles() int64 { return r.controller.Reconciles() }

// Run builds the scenario on the control plane, starts the controller,
// drives every event and returns the accounts.
func Run(ctx context.Context, s Scenario, opts Options) (*Result, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if opts.Controller == nil {
		return nil, errors.New("no controller to measure: set Options.Controller (DropInProcess or CAPIProcess)")
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
	if !RunsClusterAPIExtensionConfigController(opts.Controller.Name()) {
		scanCtx, stopScan := context.WithCancel(ctx)
		defer stopScan()
		scan, err := startScanCache(scanCtx, opts.Config)
		if err != nil {
			return nil, err
		}
		r.scanCache = scan
	}

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
		if err := r.restartManager(ctx, Periods{Resync: opts.IdlePeriod}); err != nil {
			return nil, err
		}
		if err := r.measureAll(ctx, result, []event{r.idleEvent(opts.IdlePeriod)}); err != nil {
			return nil, err
		}
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

// restartManager stops the controller, starts a new one with periods and
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
	o := quiet.Options{Timeout: timeout, Interval: 100 * time.Millisecond}
	if idle {
		o.Quiet = r.opts.Quiet
	}
	// Once check passes, only the reconciles are watched.
	passed := false
	_, _, err := quiet.Wait(ctx, o, quiet.Equal[int64], func() (int64, bool, error) {
		if !passed {
			ok, err := check()
			if err != nil {
				return 0, false, err
			}
			passed = ok
		}
		return r.reconciles(), passed, nil
	})
	if errors.Is(err, quiet.ErrTimeout) {
		return fmt.Errorf("%s: %w within %s", what, errNotDone, timeout)
	}
	return err
}

// errNotDone is a poll that ran out of time.
var errNotDone = errors.New("not done")

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
