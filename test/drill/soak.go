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
	"maps"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/benchfixture"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// SoakOptions shape the soak.
type SoakOptions struct {
	ClusterClasses   int `json:"clusterClasses"`
	ExtensionConfigs int `json:"extensionConfigs"`
	Namespaces       int `json:"namespaces"`
	// Duration is how long changes keep coming.
	Duration time.Duration `json:"duration"`
	// ChangeEvery is the pause between two changes.
	ChangeEvery time.Duration `json:"changeEvery"`
	// SampleEvery is the pause between two readings of the controller.
	SampleEvery time.Duration `json:"sampleEvery"`
	// Timeout bounds set-up and the final convergence.
	Timeout time.Duration `json:"timeout"`
}

// DefaultSoakOptions: 10,000 ClusterClasses and 100 ExtensionConfigs for
// 10 minutes, a change every 2 seconds.
func DefaultSoakOptions() SoakOptions {
	return SoakOptions{ClusterClasses: 10000, ExtensionConfigs: 100, Namespaces: 50, Duration: 10 * time.Minute,
		ChangeEvery: 2 * time.Second, SampleEvery: 15 * time.Second, Timeout: 5 * time.Minute}
}

// soakChanges are the periodic changes, taken in turn.
var soakChanges = []string{"registration", "clusterclass-settings", "namespace-labels", "certificate-rotation", "config-delete-or-recreate"}

// Trend summarises one quantity over the soak's samples after warm-up.
type Trend struct {
	Min   int64 `json:"min"`
	Max   int64 `json:"max"`
	First int64 `json:"first"`
	Last  int64 `json:"last"`
	// Growth is the mean of the last third of samples over the mean of the
	// first third, minus one: 0.05 is 5% growth.
	Growth float64 `json:"growth"`
}

func trendOf(samples []Sample, value func(Sample) int64) Trend {
	if len(samples) == 0 {
		return Trend{}
	}
	t := Trend{Min: value(samples[0]), Max: value(samples[0]), First: value(samples[0]), Last: value(samples[len(samples)-1])}
	for _, s := range samples {
		t.Min, t.Max = min(t.Min, value(s)), max(t.Max, value(s))
	}
	third := max(len(samples)/3, 1)
	mean := func(part []Sample) float64 {
		total := 0.0
		for _, s := range part {
			total += float64(value(s))
		}
		return total / float64(len(part))
	}
	if first := mean(samples[:third]); first > 0 {
		t.Growth = mean(samples[len(samples)-third:])/first - 1
	}
	return t
}

// SoakReport is what the soak measured.
type SoakReport struct {
	Options SoakOptions `json:"options"`
	// Setup is how long creating and converging every ClusterClass took.
	Setup time.Duration `json:"setup"`
	// Changes counts the changes made, by kind.
	Changes map[string]int `json:"changes"`
	// Samples are every reading; the trends cover those after warm-up
	// (the first sample of the soak).
	Samples    []Sample `json:"samples"`
	RSS        Trend    `json:"rss"`
	Heap       Trend    `json:"heap"`
	Goroutines Trend    `json:"goroutines"`
	// CacheEntriesMax is the largest call cache size sampled; CacheBound
	// is the most the drop-in's cache holds.
	CacheEntriesMax int64 `json:"cacheEntriesMax"`
	CacheBound      int64 `json:"cacheBound"`
	// Converged is how long the last change took to settle.
	Converged time.Duration `json:"converged"`
	// CacheEmptied is how long after every ExtensionConfig was deleted the
	// cache and the registry were empty.
	CacheEmptied time.Duration `json:"cacheEmptied"`
	Reconciles   int64         `json:"reconciles"`
	Calls        int64         `json:"calls"`
	Observed     int64         `json:"observed"`
	Losses       []Loss        `json:"losses"`
}

// Soak runs the soak: many ClusterClasses and ExtensionConfigs, periodic
// changes of every kind the controller reacts to, the controller's memory,
// goroutines and call cache sampled throughout.
func Soak(ctx context.Context, env Env, o SoakOptions) (*SoakReport, error) {
	// --sync-period is the drop-in's rediscovery interval (and every
	// Cluster API controller's resync, which enqueues no ClusterClass of
	// ours). The drop-in's call cache bound is fixed, with no flag, far
	// above what the soak fills: the soak holds the cache to it and to
	// emptying when every handler goes, and the eviction at the bound is
	// left to variablescache's tests.
	args := []string{"--sync-period=1m"}
	h, err := setUp(ctx, env, "soak", fixtureOptions{
		clusterClasses: o.ClusterClasses, extensionConfigs: o.ExtensionConfigs, namespaces: o.Namespaces,
		selectorEvery: 5, handlerTimeout: 10,
	}, args, variablesV1)
	if err != nil {
		return nil, err
	}
	defer h.tearDown(context.WithoutCancel(ctx))
	report := &SoakReport{Options: o, Changes: map[string]int{}, CacheBound: userfacing.DefaultVariablesCacheMaxEntries}
	if err := h.fixture.createClasses(ctx, h.client); err != nil {
		return nil, err
	}
	want := h.expectEverywhere(variablesV1)
	took, err := h.guard.waitConverged(ctx, o.Timeout, want)
	if err != nil {
		return nil, fmt.Errorf("set-up: %w", err)
	}
	report.Setup = time.Since(h.started)
	env.progress("soak: %d ClusterClasses converged %s after they were created; soaking for %s", o.ClusterClasses, took.Round(time.Second), o.Duration)

	first, err := h.sample(ctx)
	if err != nil {
		return nil, err
	}
	if err := soakChangesFor(ctx, h, o, report); err != nil {
		return report, err
	}
	if report.Converged, err = h.guard.waitConverged(ctx, o.Timeout, want); err != nil {
		return report, fmt.Errorf("after the soak: %w", err)
	}
	last, err := h.sample(ctx)
	if err != nil {
		return report, err
	}
	report.Reconciles, report.Calls = last.Reconciles-first.Reconciles, last.DiscoverVariablesCalls-first.DiscoverVariablesCalls
	if report.CacheEmptied, err = emptiedAfterDeletingEveryConfig(ctx, h, o.Timeout); err != nil {
		return report, err
	}
	report.summarise(h, first)
	env.progress("soak: done; RSS %d..%d MiB, goroutines %d..%d, cache at most %d entries",
		report.RSS.Min>>20, report.RSS.Max>>20, report.Goroutines.Min, report.Goroutines.Max, report.CacheEntriesMax)
	return report, nil
}

// soakChangesFor makes a change every o.ChangeEvery for o.Duration,
// sampling the controller meanwhile, and recreates a config still deleted
// at the end.
func soakChangesFor(ctx context.Context, h *harness, o SoakOptions, report *SoakReport) error {
	stopSampling := h.sampleEvery(ctx, o.SampleEvery)
	defer stopSampling()
	s := &soakState{h: h, deleted: -1}
	soakEnd := time.Now().Add(o.Duration)
	ticker := time.NewTicker(o.ChangeEvery)
	defer ticker.Stop()
	for time.Now().Before(soakEnd) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ticker.C:
		}
		kind := soakChanges[s.step%len(soakChanges)]
		if err := s.change(ctx, kind); err != nil {
			return fmt.Errorf("soak change %d (%s): %w", s.step, kind, err)
		}
		report.Changes[kind]++
		s.step++
		if err := h.exitError(); err != nil {
			return err
		}
	}
	if s.deleted >= 0 {
		return s.recreate(ctx)
	}
	return nil
}

// emptiedAfterDeletingEveryConfig deletes every ExtensionConfig and
// returns how long the cache and the registry took to empty: nothing may
// stay cached or registered once every handler is gone.
func emptiedAfterDeletingEveryConfig(ctx context.Context, h *harness, timeout time.Duration) (time.Duration, error) {
	deleted := time.Now()
	for _, e := range h.fixture.extensions {
		if err := client.IgnoreNotFound(h.client.Delete(ctx, &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: e.name}})); err != nil {
			return 0, err
		}
	}
	if err := h.poll(ctx, timeout, "empty cache and registry", func(s Sample) bool {
		return s.CacheEntries == 0 && s.RegisteredHandlers == 0
	}); err != nil {
		return 0, err
	}
	return time.Since(deleted), nil
}

// summarise fills the trends from the samples taken since first, and what
// the guard saw.
func (r *SoakReport) summarise(h *harness, first Sample) {
	var soaked []Sample
	for _, sm := range h.allSamples() {
		if sm.At >= first.At {
			soaked = append(soaked, sm)
		}
		r.CacheEntriesMax = max(r.CacheEntriesMax, sm.CacheEntries)
	}
	r.Samples = soaked
	r.RSS = trendOf(soaked, func(s Sample) int64 { return s.RSSBytes })
	r.Heap = trendOf(soaked, func(s Sample) int64 { return s.HeapBytes })
	r.Goroutines = trendOf(soaked, func(s Sample) int64 { return int64(s.Goroutines) })
	r.Observed, r.Losses = h.guard.Observed(), h.guard.Losses()
}

// soakState is where the soak's round robin of changes stands.
type soakState struct {
	h    *harness
	step int
	// deleted is the ExtensionConfig currently deleted, or -1.
	deleted int
}

func (s *soakState) change(ctx context.Context, kind string) error {
	f, c := s.h.fixture, s.h.client
	// Each kind walks its own targets, spread by step.
	n := s.step / len(soakChanges)
	switch kind {
	case "registration":
		i := s.live(n)
		f.extensions[i].revision++
		return f.updateConfig(ctx, c, i)
	case "clusterclass-settings":
		// A settings value never used before: a new call and cache key.
		return f.setClassSettings(ctx, c, (n*7919)%len(f.classes), map[string]string{"flavour": "soak-" + strconv.Itoa(n)})
	case "namespace-labels":
		name := f.namespaces[n%len(f.namespaces)]
		labels := maps.Clone(f.labels[name])
		labels[tierLabel] = benchfixture.OtherTier(labels[tierLabel])
		f.labels[name] = labels
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"`+tierLabel+`":"`+labels[tierLabel]+`"}}}`))
		return c.Patch(ctx, ns, patch)
	case "certificate-rotation":
		i := s.live(n + 1)
		if err := f.extensions[i].serve(); err != nil {
			return err
		}
		return f.updateConfig(ctx, c, i)
	case "config-delete-or-recreate":
		if s.deleted >= 0 {
			return s.recreate(ctx)
		}
		s.deleted = (n * 3) % len(f.extensions)
		return c.Delete(ctx, &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: f.extensions[s.deleted].name}})
	}
	return fmt.Errorf("unknown change %q", kind)
}

// live picks the n-th ExtensionConfig, skipping the deleted one.
func (s *soakState) live(n int) int {
	i := n % len(s.h.fixture.extensions)
	if i == s.deleted {
		i = (i + 1) % len(s.h.fixture.extensions)
	}
	return i
}

func (s *soakState) recreate(ctx context.Context) error {
	e := s.h.fixture.extensions[s.deleted]
	s.deleted = -1
	// The deletion may still be in flight on the apiserver.
	deadline := time.Now().Add(time.Minute)
	for {
		err := s.h.client.Create(ctx, e.object())
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("recreate ExtensionConfig %s: %w", e.name, err)
		}
		if err := pause(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}
