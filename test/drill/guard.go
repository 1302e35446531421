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
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
)

// Loss is a ClusterClass whose good status.variables were replaced by
// something no extension ever answered (nothing, or a partial set).
type Loss struct {
	At           time.Duration `json:"at"`
	ClusterClass string        `json:"clusterClass"`
	Before       []string      `json:"before"`
	After        []string      `json:"after"`
}

// guard watches every ClusterClass and checks each status it sees, as the
// watch delivers it, against the variable sets the extensions answer: once
// a ClusterClass has published a good set, every later status must carry a
// good set too. It keeps an informer cache that the drills also use to
// count converged ClusterClasses without listing through the apiserver.
type guard struct {
	cache   ctrlcache.Cache
	started time.Time
	good    [][]string

	mu       sync.Mutex
	hadGood  map[types.NamespacedName][]string
	losses   []Loss
	observed int64
}

// startGuard starts the informer and waits for its first list.
func startGuard(ctx context.Context, config *rest.Config, good ...[]clusterv1.ClusterClassVariable) (*guard, error) {
	c, err := ctrlcache.New(config, ctrlcache.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, fmt.Errorf("guard cache: %w", err)
	}
	g := &guard{cache: c, started: time.Now(), hadGood: map[types.NamespacedName][]string{}}
	for _, vars := range good {
		g.good = append(g.good, namesOf(vars))
	}
	informer, err := c.GetInformer(ctx, &clusterv1.ClusterClass{})
	if err != nil {
		return nil, fmt.Errorf("guard informer: %w", err)
	}
	if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { g.check(obj) },
		UpdateFunc: func(_, obj any) { g.check(obj) },
	}); err != nil {
		return nil, fmt.Errorf("guard handler: %w", err)
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("guard cache did not sync")
	}
	return g, nil
}

func variableNames(cc *clusterv1.ClusterClass) []string {
	names := make([]string, 0, len(cc.Status.Variables))
	for _, v := range cc.Status.Variables {
		names = append(names, v.Name)
	}
	slices.Sort(names)
	return names
}

func (g *guard) isGood(names []string) bool {
	for _, good := range g.good {
		if slices.Equal(names, good) {
			return true
		}
	}
	return false
}

func (g *guard) check(obj any) {
	cc, ok := obj.(*clusterv1.ClusterClass)
	if !ok {
		return
	}
	key := types.NamespacedName{Namespace: cc.Namespace, Name: cc.Name}
	names := variableNames(cc)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.observed++
	if g.isGood(names) {
		g.hadGood[key] = names
		return
	}
	if before, had := g.hadGood[key]; had {
		g.losses = append(g.losses, Loss{At: time.Since(g.started), ClusterClass: key.String(), Before: before, After: names})
		delete(g.hadGood, key)
	}
}

// Losses returns every loss seen so far.
func (g *guard) Losses() []Loss {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.losses)
}

// Observed is how many ClusterClass states the guard has checked.
func (g *guard) Observed() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.observed
}

// convergence counts, among the ClusterClasses want selects, those whose
// status is current (observedGeneration), VariablesReady and publishes
// exactly the variables want names.
func (g *guard) convergence(ctx context.Context, want func(types.NamespacedName) ([]string, bool)) (converged, total int, err error) {
	list := &clusterv1.ClusterClassList{}
	if err := g.cache.List(ctx, list); err != nil {
		return 0, 0, err
	}
	for i := range list.Items {
		cc := &list.Items[i]
		names, ok := want(types.NamespacedName{Namespace: cc.Namespace, Name: cc.Name})
		if !ok {
			continue
		}
		total++
		ready := meta.FindStatusCondition(cc.Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition)
		if ready != nil && ready.Status == "True" && cc.Status.ObservedGeneration == cc.Generation &&
			slices.Equal(variableNames(cc), names) {
			converged++
		}
	}
	return converged, total, nil
}

// waitConverged polls convergence until every selected ClusterClass has
// converged, and returns how long that took.
func (g *guard) waitConverged(ctx context.Context, timeout time.Duration, want func(types.NamespacedName) ([]string, bool)) (time.Duration, error) {
	started := time.Now()
	deadline := time.After(timeout)
	for {
		converged, total, err := g.convergence(ctx, want)
		if err != nil {
			return 0, err
		}
		if total > 0 && converged == total {
			return time.Since(started), nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-deadline:
			return 0, fmt.Errorf("%d of %d ClusterClasses converged after %s", converged, total, timeout)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// namesOf is the sorted variable names of vars.
func namesOf(vars []clusterv1.ClusterClassVariable) []string {
	names := make([]string, 0, len(vars))
	for _, v := range vars {
		names = append(names, v.Name)
	}
	slices.Sort(names)
	return names
}

func (l Loss) String() string {
	return fmt.Sprintf("%s at %s: [%s] -> [%s]", l.ClusterClass, l.At.Round(time.Millisecond),
		strings.Join(l.Before, ","), strings.Join(l.After, ","))
}
