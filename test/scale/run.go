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
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	corev1 "k8s.io/api/core/v1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/quiet"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/auditcount"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/machinespeed"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/procstat"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/slowextension"
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
	// Settle bounds the wait for quiet once an event's change is done and
	// its window has passed: at scale, resyncs every sync period may never
	// leave a gap of Quiet, and the event is then reported as not quiet
	// rather than held to EventTimeout. Zero means EventTimeout.
	Settle time.Duration
	// CacheMaxAge is the response cache annotation's value for Cache
	// variants; at least the idle window.
	CacheMaxAge time.Duration
	// Latencies are the slow extension's latencies, each a run of every
	// variant: the slow extension (test/slowextension) holds each request
	// to Cluster API's test extension that long. None means one run at 0.
	Latencies []time.Duration
	// LeaderElection runs every core manager with --leader-elect, as
	// Cluster API's Deployment does; a leader change needs it.
	LeaderElection bool
	// LeaderChangeLatencies are the latencies whose runs make a leader
	// change before the delete, with every Cluster Available: a second replica, the leader killed, a
	// Cluster created, and LeaderChangeWindow of counts after the takeover.
	LeaderChangeLatencies []time.Duration
	LeaderChangeWindow    time.Duration
	// Only, when set, names the events to make, of Events; the rest are
	// left out.
	Only []string
	// ManagerArgs are more flags of the core manager, the same under every
	// manager: the concurrency and client rate limits of a scale run.
	ManagerArgs []string
	// Progress receives a line per step.
	Progress io.Writer `json:"-"`
	// Save, when set, is given every result so far after each run, so
	// that a long run that stops keeps what it measured.
	Save func([]*RunResult) error `json:"-"`
}

// makes tells whether the run makes the event.
func (o Options) makes(event string) bool {
	return len(o.Only) == 0 || slices.Contains(o.Only, event)
}

// Event names, in the order a run makes them.
const (
	EventCreate     = "create all"
	EventIdle       = "idle one sync period"
	EventAnnotation = "ExtensionConfig annotation update"
	EventSettings   = "ExtensionConfig settings change"
	EventUpgrade    = "upgrade all"
	// EventLeaderChange is made only at Options.LeaderChangeLatencies.
	EventLeaderChange = "leader change"
	EventDelete       = "delete all"
)

// Events lists them in order.
var Events = []string{EventCreate, EventIdle, EventAnnotation, EventSettings, EventUpgrade, EventLeaderChange, EventDelete}

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
	// NotDone is set when the change was not done by the event's deadline:
	// ToQuiet is then up to the deadline, and the counters say what the
	// managers did until it, which is what a user would have seen.
	NotDone bool `json:"notDone,omitempty"`
	Counters
}

// RunResult is one variant's run.
type RunResult struct {
	Variant  string `json:"variant"`
	Clusters int    `json:"clusters"`
	// Latency is the slow extension's.
	Latency time.Duration `json:"latency"`
	Events  []EventResult `json:"events"`
	// Settings are the options it was made with (Options.settings).
	Settings string `json:"settings"`
	// LeaderChange is set when the run made one.
	LeaderChange *LeaderChange `json:"leaderChange,omitempty"`
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
	// Started and Finished bound the run, its management cluster's start
	// and stop included: a whole run spans sessions, and these say what
	// each part took.
	Started  time.Time `json:"started,omitzero"`
	Finished time.Time `json:"finished,omitzero"`
	// Speed is the machine this run had: runs made in different sessions
	// ran on different machines behind the same CPU model.
	Speed *MachineSpeed `json:"speed,omitempty"`
}

// MachineSpeed is how fast one core of the machine hashed before and after
// a run (machinespeed.HashMiBPerSecond), with no management cluster up,
// and the CPU time the hypervisor took from the machine during the run.
type MachineSpeed struct {
	HashMiBPerSecondBefore float64 `json:"hashMiBPerSecondBefore"`
	HashMiBPerSecondAfter  float64 `json:"hashMiBPerSecondAfter"`
	StealSeconds           float64 `json:"stealSeconds"`
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

// Run runs the workload (RenderWorkload) under each variant at each
// latency, each on a fresh management cluster. A run that fails keeps
// what it measured, and the next still runs; one stopped through ctx is
// left out, as not run. A run earlier holds without
// an error is kept rather than made again, so a long run that stopped
// can go on where it was.
func Run(ctx context.Context, o Options, w *Workload, variants []Variant, earlier []*RunResult) ([]*RunResult, error) {
	// Every earlier run stays in the results, replaced only by a run made
	// again: a save must never drop what an earlier session measured.
	results := slices.Clone(earlier)
	for _, latency := range o.RunLatencies() {
		for _, v := range variants {
			settings := o.settings(latency)
			i := slices.IndexFunc(results, func(e *RunResult) bool { return e.Variant == v.Name && e.Latency == latency })
			if i >= 0 && o.Keeps(results[i]) {
				fmt.Fprintf(o.Progress, "== %s at %s: kept from the results file\n", v.Name, latency)
				continue
			}
			r := &RunResult{Variant: v.Name, Clusters: o.Clusters, Latency: latency, Settings: settings, Started: time.Now().UTC()}
			fmt.Fprintf(o.Progress, "== %s, %d Clusters, extension latency %s\n", v.Name, o.Clusters, latency)
			speed, stealBefore := &MachineSpeed{HashMiBPerSecondBefore: machinespeed.HashMiBPerSecond()}, stealSeconds()
			err := runVariant(ctx, o, w, v, r)
			speed.HashMiBPerSecondAfter, speed.StealSeconds = machinespeed.HashMiBPerSecond(), stealSeconds()-stealBefore
			r.Speed = speed
			if err != nil {
				if ctx.Err() != nil {
					// Stopped from outside: not run, rather than failed.
					return results, ctx.Err()
				}
				r.Err = err.Error()
				fmt.Fprintf(o.Progress, "%s failed: %v\n", v.Name, err)
			}
			r.Finished = time.Now().UTC()
			if i >= 0 {
				results[i] = r
			} else {
				results = append(results, r)
			}
			if o.Save != nil {
				if err := o.Save(results); err != nil {
					return results, err
				}
			}
			if ctx.Err() != nil {
				return results, ctx.Err()
			}
		}
	}
	return results, nil
}

// RunLatencies are the slow extension's latencies a run is made at: 0
// when Latencies names none.
func (o Options) RunLatencies() []time.Duration {
	if len(o.Latencies) == 0 {
		return []time.Duration{0}
	}
	return o.Latencies
}

// Keeps tells whether r is a finished run made with o's shape: a resumed
// run keeps it rather than make it again.
func (o Options) Keeps(r *RunResult) bool {
	return r.Err == "" && r.Clusters == o.Clusters && r.Settings == o.settings(r.Latency)
}

// settings are the options that shape a run at latency, in one line: a
// run kept from a results file must have been made with the same.
func (o Options) settings(latency time.Duration) string {
	return fmt.Sprintf("concurrency=%d classes=%d sync=%s idle=%s quiet=%s settle=%s cache=%s events=%v leader-election=%v leader-change=%v window=%s args=%v",
		o.Concurrency, o.AdditionalClasses, o.SyncPeriod, o.IdleMargin, o.Quiet, o.Settle, o.CacheMaxAge, o.Only,
		o.LeaderElection, slices.Contains(o.LeaderChangeLatencies, latency), o.LeaderChangeWindow, o.ManagerArgs)
}

// run is one variant's management cluster and workload.
type run struct {
	o    Options
	w    *Workload
	mgmt *capimanagement.Management
	c    client.Client
	// view is a watch of the Clusters and Machines the waits read: 200
	// waiting workers each polling kube-apiserver would be its busiest
	// client and slow the managers down.
	view      client.Reader
	extension *slowextension.Proxy
	reader    *reader
	result    *RunResult
	// takeoverCreated is set once the leader change created its Cluster,
	// which the delete deletes too.
	takeoverCreated bool
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
		BinDir: o.BinDir, Dir: dir, CoreManager: coreManager, AuditLog: true, LeaderElection: o.LeaderElection,
		// The takeover's Cluster is one more.
		WorkloadClusters: o.Clusters + 1,
		CoreManagerArgs:  append([]string{"--sync-period=" + o.SyncPeriod.String()}, o.ManagerArgs...),
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
	// The watch ends before the management cluster stops, so that it does
	// not retry a kube-apiserver that is gone.
	ctx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	view, err := watchClustersAndMachines(ctx, mgmt)
	if err != nil {
		return err
	}
	extension, err := slowextension.Start(slowextension.Options{Upstream: mgmt.ExtensionURL, UpstreamCA: mgmt.ExtensionCA, Latency: result.Latency})
	if err != nil {
		return err
	}
	defer extension.Close()
	r := &run{o: o, w: w, mgmt: mgmt, c: mgmt.Client, view: view, extension: extension,
		reader: &reader{mgmt: mgmt, audit: audit.Tally(mark), extension: extension}, result: result}
	r.reader.progress = r.progress
	if err := r.setUp(ctx, v); err != nil {
		return err
	}
	return r.events(ctx)
}

// watchClustersAndMachines starts a cache of the workload's namespace's
// Clusters and Machines, which lives as long as ctx.
func watchClustersAndMachines(ctx context.Context, mgmt *capimanagement.Management) (client.Reader, error) {
	view, err := ctrlcache.New(mgmt.Config, ctrlcache.Options{Scheme: scheme.New(), DefaultNamespaces: map[string]ctrlcache.Config{Namespace: {}}})
	if err != nil {
		return nil, err
	}
	for _, obj := range []client.Object{&clusterv1.Cluster{}, &clusterv1.Machine{}} {
		if _, err := view.GetInformer(ctx, obj); err != nil {
			return nil, err
		}
	}
	go func() { _ = view.Start(ctx) }()
	if !view.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("the watch of Clusters and Machines did not sync: %w", ctx.Err())
	}
	return view, nil
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
	// Every call goes through the slow extension.
	ext.Spec.ClientConfig.URL, ext.Spec.ClientConfig.CABundle = r.extension.URL, r.extension.CA
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
		if !r.o.makes(s.name) {
			continue
		}
		// The leader change comes between the upgrade and the delete,
		// with every Cluster Available.
		if s.name == EventDelete && r.makesLeaderChange() {
			r.progress("event: " + EventLeaderChange)
			if err := r.leaderChange(ctx); err != nil {
				return fmt.Errorf("%s: %w", EventLeaderChange, err)
			}
		}
		r.progress("event: " + s.name)
		e, err := r.measure(ctx, s.name, s.apply, s.window)
		if e.NotDone {
			r.result.Events = append(r.result.Events, e)
		}
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

// latest is the later of a and b.
func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// errNotSettled ends the wait for quiet of an event that is done but kept
// busy past Options.Settle.
var errNotSettled = errors.New("not quiet within the settle time")

// pollInterval is how often waits and the quiet test look.
const pollInterval = 2 * time.Second

// measure applies one event and reads every counter before and once it is
// quiet: window has passed, apply has returned and nothing of Controllers
// nor the extension moved for Quiet. An event whose counters still move
// at its deadline is reported as not quiet rather than failed, since its
// counts so far are still what it cost. An event whose change is not done
// by its deadline fails, and is returned marked NotDone with its counters
// up to the deadline.
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
			if err != nil {
				return 0, false, err
			}
			if !doneAt.IsZero() && r.o.Settle > 0 && time.Since(latest(doneAt, start.Add(window))) > r.o.Settle {
				return 0, false, errNotSettled
			}
			return now.activity(), !doneAt.IsZero() && !time.Now().Before(start.Add(window)), nil
		})
	notQuiet := errors.Is(err, quiet.ErrTimeout) || errors.Is(err, errNotSettled)
	if err != nil && !notQuiet {
		return EventResult{}, err
	}
	// Taken before the read, which can be slow under the same load.
	deadline := time.Since(start)
	after, err := r.reader.read(ctx)
	if doneAt.IsZero() {
		notDone := fmt.Errorf("not done after %s", deadline.Round(time.Second))
		if err != nil {
			// Under the load that held the change back, the counters may
			// not answer either; the event is then lost, its cause is not.
			return EventResult{}, fmt.Errorf("%w; its counters: %w", notDone, err)
		}
		return EventResult{Name: name, ToQuiet: deadline, NotQuiet: true, NotDone: true, Counters: after.Sub(before)}, notDone
	}
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
	errs := make(chan error, len(r.w.Clusters)+1)
	var wg sync.WaitGroup
	var done atomic.Int32
	for range max(r.o.Concurrency, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				if err := work(ctx, name); err != nil {
					errs <- fmt.Errorf("Cluster %s: %w", name, err)
				}
				done.Add(1)
			}
		}()
	}
	// A line a minute says how far a long event is.
	stopProgress := make(chan struct{})
	defer close(stopProgress)
	go func() {
		for {
			select {
			case <-stopProgress:
				return
			case <-time.After(time.Minute):
				r.progress(fmt.Sprintf("%d Clusters done", done.Load()))
			}
		}
	}()
	for _, c := range r.w.Clusters {
		names <- c.GetName()
	}
	if r.takeoverCreated {
		names <- r.w.Takeover.GetName()
	}
	close(names)
	wg.Wait()
	close(errs)
	return <-errs
}

func (r *run) createAll(ctx context.Context) error {
	byName := map[string]*unstructured.Unstructured{}
	for _, c := range r.w.Clusters {
		byName[c.GetName()] = c
	}
	return r.eachCluster(ctx, func(ctx context.Context, name string) error {
		if err := r.c.Create(ctx, byName[name].DeepCopy()); err != nil {
			return err
		}
		return r.waitFor(ctx, r.o.EventTimeout, "Available", func() (bool, string, error) {
			return r.available(ctx, name, "")
		})
	})
}

// available tells whether a Cluster is Available with its topology
// reconciled at its generation and, when version is set, every Machine
// of it at that version and none deleting.
func (r *run) available(ctx context.Context, name, version string) (bool, string, error) {
	cluster := &clusterv1.Cluster{}
	if err := r.view.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: name}, cluster); err != nil {
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
	if err := r.view.List(ctx, machines, client.InNamespace(Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: name}); err != nil {
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
		return r.waitFor(ctx, r.o.EventTimeout, "upgraded to "+r.w.ToVersion, func() (bool, string, error) {
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
		return r.waitFor(ctx, r.o.EventTimeout, "deleted", func() (bool, string, error) {
			err := r.view.Get(ctx, client.ObjectKeyFromObject(cluster), &clusterv1.Cluster{})
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

// stealSeconds is procstat.HostStealSeconds, or 0 where /proc/stat has
// none: a run is never stopped for want of it.
func stealSeconds() float64 {
	steal, err := procstat.HostStealSeconds()
	if err != nil {
		return 0
	}
	return steal
}
