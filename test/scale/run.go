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
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	corev1 "k8s.io/api/core/v1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/quiet"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/auditcount"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// Variant is one manager a run goes under.
type Variant struct {
	// Name heads its column.
	Name string
	// DropIn runs bin/core-manager; otherwise Cluster API's own manager.
	DropIn bool
	// Cache annotates the test extension's ExtensionConfig with the
	// response cache's max age (only the drop-in reads it).
	Cache bool
}

// The variants a scale run compares.
var (
	DropIn      = Variant{Name: "drop-in", DropIn: true}
	ClusterAPI  = Variant{Name: "Cluster API"}
	DropInCache = Variant{Name: "drop-in + cache", DropIn: true, Cache: true}
)

// Options configure a scale run.
type Options struct {
	// BinDir holds the control plane, Cluster API's manager and providers
	// and bin/core-manager.
	BinDir string
	// Dir receives one management cluster per variant, wiped first.
	Dir string
	// ClusterTemplate is Cluster API's cluster-template-in-memory-scale.yaml.
	ClusterTemplate string
	// Clusters, Concurrency and AdditionalClasses shape the workload as
	// Cluster API's scale e2e does (10, 5 and 4 there).
	Clusters, Concurrency, AdditionalClasses int
	// SyncPeriod is both managers' --sync-period; the idle event lasts one
	// period and IdleMargin.
	SyncPeriod, IdleMargin time.Duration
	// Quiet is how long without a reconcile of Controllers and without an
	// extension request an event counts as settled.
	Quiet time.Duration
	// EventTimeout bounds an event past its window: an event that is not
	// quiet by then is reported as such.
	EventTimeout time.Duration
	// CacheMaxAge is the response cache annotation's value for Cache
	// variants; at least the idle window.
	CacheMaxAge time.Duration
	// Progress receives a line per step.
	Progress io.Writer `json:"-"`
}

// Event names, in the order a run makes them.
const (
	EventCreate     = "create all"
	EventIdle       = "idle one sync period"
	EventAnnotation = "ExtensionConfig annotation update"
	EventSettings   = "ExtensionConfig settings change"
	EventUpgrade    = "upgrade all"
	EventDelete     = "delete all"
)

// Events lists them in order.
var Events = []string{EventCreate, EventIdle, EventAnnotation, EventSettings, EventUpgrade, EventDelete}

// EventResult is one event under one manager.
type EventResult struct {
	Name string `json:"name"`
	// ToQuiet is from the change to the last activity (or the end of the
	// event's window); ToDone to all Available (create, upgrade) or all
	// gone (delete).
	ToQuiet time.Duration `json:"toQuiet"`
	ToDone  time.Duration `json:"toDone,omitempty"`
	// NotQuiet is set when activity went on past the event's deadline.
	NotQuiet bool `json:"notQuiet,omitempty"`
	Counters
}

// RunResult is one variant's run.
type RunResult struct {
	Variant  string        `json:"variant"`
	Clusters int           `json:"clusters"`
	Events   []EventResult `json:"events"`
	// Handlers are the test extension's handlers as Discovery registered
	// them on the ExtensionConfig.
	Handlers []string `json:"handlers"`
	// Conditions of the ExtensionConfig at the end (type=status reason).
	ExtensionConfigConditions []string `json:"extensionConfigConditions"`
	// Specs are the generated objects, normalised, after create and after
	// upgrade.
	SpecsAfterCreate  Specs `json:"specsAfterCreate,omitempty"`
	SpecsAfterUpgrade Specs `json:"specsAfterUpgrade,omitempty"`
	// Err is what stopped the run, if anything; Events holds what was
	// measured until then.
	Err string `json:"err,omitempty"`
}

// Event returns the named event's result, or nil.
func (r *RunResult) Event(name string) *EventResult {
	for i := range r.Events {
		if r.Events[i].Name == name {
			return &r.Events[i]
		}
	}
	return nil
}

// Run runs the workload (RenderWorkload) under each variant, each on a
// fresh management cluster. A variant that fails keeps what it measured,
// and the next still runs.
func Run(ctx context.Context, o Options, w *Workload, variants []Variant) ([]*RunResult, error) {
	var results []*RunResult
	for _, v := range variants {
		r := &RunResult{Variant: v.Name, Clusters: o.Clusters}
		fmt.Fprintf(o.Progress, "== %s, %d Clusters\n", v.Name, o.Clusters)
		if err := runVariant(ctx, o, w, v, r); err != nil {
			r.Err = err.Error()
			fmt.Fprintf(o.Progress, "%s failed: %v\n", v.Name, err)
		}
		results = append(results, r)
		if ctx.Err() != nil {
			return results, ctx.Err()
		}
	}
	return results, nil
}

// run is one variant's management cluster and workload.
type run struct {
	o      Options
	w      *Workload
	mgmt   *capimanagement.Management
	c      client.Client
	reader *reader
	result *RunResult
}

func runVariant(ctx context.Context, o Options, w *Workload, v Variant, result *RunResult) error {
	dir := filepath.Join(o.Dir, dirName(v))
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	coreManager := ""
	if v.DropIn {
		coreManager = filepath.Join(o.BinDir, "core-manager")
	}
	mgmt, err := capimanagement.Start(ctx, capimanagement.Options{
		BinDir: o.BinDir, Dir: dir, CoreManager: coreManager, AuditLog: true,
		CoreManagerArgs: []string{"--sync-period=" + o.SyncPeriod.String()},
	})
	if err != nil {
		return err
	}
	defer mgmt.Stop()
	audit := auditcount.Open(mgmt.AuditLogPath)
	mark, err := audit.Mark()
	if err != nil {
		return err
	}
	r := &run{o: o, w: w, mgmt: mgmt, c: mgmt.Client, reader: &reader{mgmt: mgmt, audit: audit, start: mark}, result: result}
	if err := r.setUp(ctx, v); err != nil {
		return err
	}
	return r.events(ctx)
}

func dirName(v Variant) string {
	switch {
	case v.DropIn && v.Cache:
		return "drop-in-cache"
	case v.DropIn:
		return "drop-in"
	}
	return "capi"
}

// setUp registers the test extension and creates the ClusterClasses, and
// waits until the config is Discovered with the ValidateTopology handler
// the classes name and every class is VariablesReady.
func (r *run) setUp(ctx context.Context, v Variant) error {
	if err := r.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}); err != nil {
		return err
	}
	ext := r.mgmt.TestExtensionConfig(ExtensionConfigName, Namespace)
	if v.Cache {
		ext.Annotations = map[string]string{userfacing.ResponseCacheMaxAgeAnnotation: r.o.CacheMaxAge.String()}
	}
	if err := r.c.Create(ctx, ext); err != nil {
		return err
	}
	r.progress("waiting for the ExtensionConfig to be Discovered")
	if err := r.waitFor(ctx, 3*time.Minute, "the ExtensionConfig is Discovered with "+r.w.ValidateTopologyHandler, func() (bool, string, error) {
		got := &runtimev1.ExtensionConfig{}
		if err := r.c.Get(ctx, client.ObjectKey{Name: ExtensionConfigName}, got); err != nil {
			return false, "", err
		}
		if !meta.IsStatusConditionTrue(got.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition) {
			return false, fmt.Sprintf("conditions %+v", got.Status.Conditions), nil
		}
		r.result.Handlers = nil
		for _, h := range got.Status.Handlers {
			r.result.Handlers = append(r.result.Handlers, h.Name)
		}
		for _, h := range r.result.Handlers {
			if h == r.w.ValidateTopologyHandler {
				return true, "", nil
			}
		}
		return false, "", fmt.Errorf("the test extension's Discovery registered no %s: %v", r.w.ValidateTopologyHandler, r.result.Handlers)
	}); err != nil {
		return err
	}
	for _, u := range r.w.Classes {
		if err := r.c.Create(ctx, u.DeepCopy()); err != nil {
			return fmt.Errorf("create %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	r.progress(fmt.Sprintf("waiting for %d ClusterClasses to be VariablesReady", r.o.AdditionalClasses+1))
	return r.waitFor(ctx, 3*time.Minute, "every ClusterClass is VariablesReady", func() (bool, string, error) {
		list := &clusterv1.ClusterClassList{}
		if err := r.c.List(ctx, list, client.InNamespace(Namespace)); err != nil {
			return false, "", err
		}
		for _, cc := range list.Items {
			if !meta.IsStatusConditionTrue(cc.Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition) {
				return false, fmt.Sprintf("%s: %+v", cc.Name, cc.Status.Conditions), nil
			}
		}
		return len(list.Items) == r.o.AdditionalClasses+1, fmt.Sprintf("%d ClusterClasses", len(list.Items)), nil
	})
}

// events makes each event in order and measures it.
func (r *run) events(ctx context.Context) error {
	steps := []struct {
		name   string
		apply  func(context.Context) error
		window time.Duration
		after  func(context.Context) error
	}{
		{name: EventCreate, apply: r.createAll, after: func(ctx context.Context) (err error) {
			r.result.SpecsAfterCreate, err = TakeSpecs(ctx, r.c, Namespace)
			return err
		}},
		{name: EventIdle, apply: func(context.Context) error { return nil }, window: r.o.SyncPeriod + r.o.IdleMargin},
		{name: EventAnnotation, apply: r.touchExtensionConfig(func(e *runtimev1.ExtensionConfig) {
			if e.Annotations == nil {
				e.Annotations = map[string]string{}
			}
			e.Annotations["scale.runtime-sdk-controller.dev/touched"] = "1"
		})},
		{name: EventSettings, apply: r.touchExtensionConfig(func(e *runtimev1.ExtensionConfig) {
			// A setting the test extension ignores: only the requests'
			// settings change.
			e.Spec.Settings["scaleRun"] = "settings-changed"
		})},
		{name: EventUpgrade, apply: r.upgradeAll, after: func(ctx context.Context) (err error) {
			r.result.SpecsAfterUpgrade, err = TakeSpecs(ctx, r.c, Namespace)
			return err
		}},
		{name: EventDelete, apply: r.deleteAll},
	}
	for _, s := range steps {
		r.progress("event: " + s.name)
		e, err := r.measure(ctx, s.name, s.apply, s.window)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		r.result.Events = append(r.result.Events, e)
		r.progress(fmt.Sprintf("%s: quiet after %s (done after %s), %v extension requests, %v reconciles",
			s.name, e.ToQuiet.Round(time.Second), e.ToDone.Round(time.Second), e.Requests, e.Reconciles))
		if s.after != nil {
			if err := s.after(ctx); err != nil {
				return fmt.Errorf("after %s: %w", s.name, err)
			}
		}
	}
	return r.extensionConfigConditions(ctx)
}

func (r *run) extensionConfigConditions(ctx context.Context) error {
	got := &runtimev1.ExtensionConfig{}
	if err := r.c.Get(ctx, client.ObjectKey{Name: ExtensionConfigName}, got); err != nil {
		return err
	}
	for _, c := range got.Status.Conditions {
		r.result.ExtensionConfigConditions = append(r.result.ExtensionConfigConditions, fmt.Sprintf("%s=%s %s", c.Type, c.Status, c.Reason))
	}
	return nil
}

// pollInterval is how often waits and the quiet test look.
const pollInterval = 2 * time.Second

// measure applies one event and reads every counter before and once it is
// quiet: window has passed, apply has returned and nothing of Controllers
// nor the extension moved for Quiet. An event whose counters still move
// at its deadline is reported as not quiet rather than failed, since its
// counts so far are still what it cost.
func (r *run) measure(ctx context.Context, name string, apply func(context.Context) error, window time.Duration) (EventResult, error) {
	before, err := r.reader.read(ctx)
	if err != nil {
		return EventResult{}, err
	}
	start := time.Now()
	applied := make(chan error, 1)
	go func() { applied <- apply(ctx) }()
	var doneAt time.Time
	_, lastChange, err := quiet.Wait(ctx, quiet.Options{Quiet: r.o.Quiet, Timeout: window + r.o.EventTimeout, Interval: pollInterval},
		quiet.Equal[float64], func() (float64, bool, error) {
			if err := r.mgmt.Exited(); err != nil {
				return 0, false, err
			}
			if doneAt.IsZero() {
				select {
				case err := <-applied:
					if err != nil {
						return 0, false, err
					}
					doneAt = time.Now()
				default:
				}
			}
			now, err := r.reader.scrape(ctx)
			return now.activity(), !doneAt.IsZero() && !time.Now().Before(start.Add(window)), err
		})
	notQuiet := errors.Is(err, quiet.ErrTimeout)
	switch {
	case notQuiet && doneAt.IsZero():
		return EventResult{}, fmt.Errorf("not done after %s", time.Since(start).Round(time.Second))
	case err != nil && !notQuiet:
		return EventResult{}, err
	}
	after, err := r.reader.read(ctx)
	if err != nil {
		return EventResult{}, err
	}
	end := lastChange
	if notQuiet {
		end = time.Now()
	}
	for _, t := range []time.Time{doneAt, start.Add(window)} {
		if t.After(end) {
			end = t
		}
	}
	e := EventResult{Name: name, ToQuiet: end.Sub(start), NotQuiet: notQuiet, Counters: after.Sub(before)}
	if name == EventCreate || name == EventUpgrade || name == EventDelete {
		e.ToDone = doneAt.Sub(start)
	}
	return e, nil
}

// touchExtensionConfig returns an event that changes the ExtensionConfig.
func (r *run) touchExtensionConfig(mutate func(*runtimev1.ExtensionConfig)) func(context.Context) error {
	return func(ctx context.Context) error {
		ext := &runtimev1.ExtensionConfig{}
		if err := r.c.Get(ctx, client.ObjectKey{Name: ExtensionConfigName}, ext); err != nil {
			return err
		}
		before := ext.DeepCopy()
		mutate(ext)
		return r.c.Patch(ctx, ext, client.MergeFrom(before))
	}
}

// eachCluster runs work for every Cluster with Concurrency workers, as
// Cluster API's scale e2e does: a worker takes the next Cluster once its
// work on the last is done, waiting included.
func (r *run) eachCluster(ctx context.Context, work func(ctx context.Context, name string) error) error {
	names := make(chan string)
	errs := make(chan error, len(r.w.Clusters))
	var wg sync.WaitGroup
	for range max(r.o.Concurrency, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				if err := work(ctx, name); err != nil {
					errs <- fmt.Errorf("Cluster %s: %w", name, err)
				}
			}
		}()
	}
	for _, c := range r.w.Clusters {
		names <- c.GetName()
	}
	close(names)
	wg.Wait()
	close(errs)
	return <-errs
}

// clusterTimeout bounds one Cluster's creation, upgrade or deletion,
// sized for two loaded cores.
const clusterTimeout = 20 * time.Minute

func (r *run) createAll(ctx context.Context) error {
	byName := map[string]*unstructured.Unstructured{}
	for _, c := range r.w.Clusters {
		byName[c.GetName()] = c
	}
	return r.eachCluster(ctx, func(ctx context.Context, name string) error {
		if err := r.c.Create(ctx, byName[name].DeepCopy()); err != nil {
			return err
		}
		return r.waitFor(ctx, clusterTimeout, "Available", func() (bool, string, error) {
			return r.available(ctx, name, "")
		})
	})
}

// available tells whether a Cluster is Available with its topology
// reconciled at its generation and, when version is set, every Machine
// of it at that version and none deleting.
func (r *run) available(ctx context.Context, name, version string) (bool, string, error) {
	cluster := &clusterv1.Cluster{}
	if err := r.c.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: name}, cluster); err != nil {
		return false, err.Error(), nil
	}
	for _, want := range []string{clusterv1.AvailableCondition, clusterv1.ClusterTopologyReconciledCondition} {
		c := meta.FindStatusCondition(cluster.Status.Conditions, want)
		if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != cluster.Generation {
			return false, fmt.Sprintf("%s is %+v", want, c), nil
		}
	}
	if version == "" {
		return true, "", nil
	}
	machines := &clusterv1.MachineList{}
	if err := r.c.List(ctx, machines, client.InNamespace(Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: name}); err != nil {
		return false, err.Error(), nil
	}
	if len(machines.Items) != controlPlaneMachines+workerMachines {
		return false, fmt.Sprintf("%d Machines", len(machines.Items)), nil
	}
	for _, m := range machines.Items {
		if m.Spec.Version != version || m.DeletionTimestamp != nil {
			return false, fmt.Sprintf("Machine %s at %s (deleting: %v)", m.Name, m.Spec.Version, m.DeletionTimestamp != nil), nil
		}
	}
	return true, "", nil
}

// upgradeAll moves every Cluster's topology to the next version, as the
// e2e flow does, and waits per Cluster for every Machine at it.
func (r *run) upgradeAll(ctx context.Context) error {
	return r.eachCluster(ctx, func(ctx context.Context, name string) error {
		cluster := &clusterv1.Cluster{}
		if err := r.c.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: name}, cluster); err != nil {
			return err
		}
		before := cluster.DeepCopy()
		cluster.Spec.Topology.Version = r.w.ToVersion
		if err := r.c.Patch(ctx, cluster, client.MergeFrom(before)); err != nil {
			return err
		}
		return r.waitFor(ctx, clusterTimeout, "upgraded to "+r.w.ToVersion, func() (bool, string, error) {
			return r.available(ctx, name, r.w.ToVersion)
		})
	})
}

// deleteAll deletes every Cluster and waits per Cluster until it is gone.
func (r *run) deleteAll(ctx context.Context) error {
	return r.eachCluster(ctx, func(ctx context.Context, name string) error {
		cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: name}}
		if err := r.c.Delete(ctx, cluster); err != nil {
			return err
		}
		return r.waitFor(ctx, clusterTimeout, "deleted", func() (bool, string, error) {
			err := r.c.Get(ctx, client.ObjectKeyFromObject(cluster), &clusterv1.Cluster{})
			return client.IgnoreNotFound(err) == nil && err != nil, fmt.Sprintf("get: %v", err), nil
		})
	})
}

// waitFor polls check until it passes, fails, a process of the
// management cluster exits, or timeout.
func (r *run) waitFor(ctx context.Context, timeout time.Duration, what string, check func() (bool, string, error)) error {
	last := ""
	_, _, err := quiet.Wait(ctx, quiet.Options{Timeout: timeout, Interval: pollInterval}, quiet.Equal[string], func() (string, bool, error) {
		if err := r.mgmt.Exited(); err != nil {
			return "", false, err
		}
		ok, why, err := check()
		if !ok {
			last = why
		}
		return why, ok, err
	})
	switch {
	case errors.Is(err, quiet.ErrTimeout):
		return fmt.Errorf("%s: not after %s (last: %s)", what, timeout, last)
	case err != nil:
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func (r *run) progress(line string) {
	fmt.Fprintf(r.o.Progress, "%s [%s] %s\n", time.Now().Format("15:04:05"), r.result.Variant, line)
}
