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
	"path/filepath"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/benchfixture"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// round makes one round's events, waits until the controller is quiet and
// checks the statuses against the model and a fresh controller.
func (p *propertyWorld) round(ctx context.Context, round int) (PropertyRound, []PropertyEvent, error) {
	r := PropertyRound{Round: round, FailureRound: p.o.FailureRoundEvery > 0 && round%p.o.FailureRoundEvery == 0}
	before, err := p.settledCounters(ctx)
	if err != nil {
		return r, nil, err
	}
	events, err := p.makeEvents(ctx, round, r.FailureRound)
	if err != nil {
		return r, events, err
	}
	for _, ev := range events {
		r.ReconcileBound += ev.OptimumReconciles
		r.CallBound += ev.OptimumCalls
	}
	r.Events = len(events)
	for k := range p.failing {
		if p.fails(k) {
			r.FailingConfigs++
		}
	}
	if r.Settled, err = p.settle(ctx, time.Now()); err != nil {
		return r, events, err
	}
	after, err := p.settledCounters(ctx)
	if err != nil {
		return r, events, err
	}
	r.Reconciles = after.reconciles - before.reconciles
	r.ReconcileErrors = after.errors - before.errors
	r.IdleRefreshes = after.unchangedRefreshes - before.unchangedRefreshes
	r.Calls = after.calls - before.calls - r.IdleRefreshes
	r.ChangedRefreshes = after.changedRefreshes - before.changedRefreshes
	r.FailedRefreshes = after.failedRefreshes - before.failedRefreshes
	if r.ModelMismatches, err = p.checkModel(ctx, round); err != nil {
		return r, events, err
	}
	r.FreshWrites, err = p.checkFresh(ctx, round)
	return r, events, err
}

// makeEvents draws and makes one round's events with random spacing, and
// returns them with their optima.
func (p *propertyWorld) makeEvents(ctx context.Context, round int, failureRound bool) ([]PropertyEvent, error) {
	var events []PropertyEvent
	// scoped[i] follows events[i] when its optimum depends on who uses a
	// config by the time the controller acts on it.
	var scoped []*scopedOptimum
	n := 1 + p.rng.IntN(p.o.MaxEventsPerRound)
	if failureRound {
		// The failure comes first, on top of the round's events.
		n++
	}
	for e := range n {
		if e > 0 && p.o.MaxSpacing > 0 {
			if err := pause(ctx, time.Duration(p.rng.Int64N(int64(p.o.MaxSpacing)))); err != nil {
				return events, err
			}
		}
		kind, k := p.next(failureRound, e)
		ev := PropertyEvent{Round: round, Kind: kind}
		var scope *scopedOptimum
		if kind == eventManagerRestart {
			// A restart reconciles everything again, and may repeat the
			// work of the round's earlier events that was in flight.
			ev.OptimumReconciles, ev.OptimumCalls = len(p.h.fixture.classes), p.requests(p.allAdmitted())
			for i := range events {
				ev.OptimumReconciles += events[i].OptimumReconciles
				ev.OptimumCalls += events[i].OptimumCalls
				if scoped[i] != nil {
					ev.OptimumReconciles += len(scoped[i].reconciles)
					ev.OptimumCalls += len(scoped[i].calls)
				}
			}
			ev.Target = "controller"
			if err := p.restart(ctx); err != nil {
				return append(events, ev), err
			}
		} else {
			var err error
			if scope, err = p.apply(ctx, &ev, k); err != nil {
				return append(events, ev), fmt.Errorf("%s %s: %w", ev.Kind, ev.Target, err)
			}
			ev.DiscoveryFails = k >= 0 && p.failing[k]
		}
		events = append(events, ev)
		scoped = append(scoped, scope)
		for _, s := range scoped {
			if s != nil {
				s.grow(p)
			}
		}
	}
	for i := range events {
		if scoped[i] != nil {
			events[i].OptimumReconciles, events[i].OptimumCalls = len(scoped[i].reconciles), len(scoped[i].calls)
		}
	}
	return events, nil
}

// apply makes one event on the cluster or an extension, about config k
// when it is about one, and fills in its target and optimum from the
// model, or returns the scope its optimum follows.
func (p *propertyWorld) apply(ctx context.Context, ev *PropertyEvent, k int) (*scopedOptimum, error) {
	f, c := p.h.fixture, p.h.client
	if k >= 0 {
		ev.Target = f.extensions[k].name
	}
	switch ev.Kind {
	case eventConfigCreate:
		p.exists[k] = true
		// Discovery that fails records no handler.
		p.recorded[k] = p.hasDiscover[k] && !p.failing[k]
		// A new object is registered as its spec stands, and proven once
		// its first Discovery works.
		p.registeredCA[k], p.proven[k] = p.extendedCA[k], !p.failing[k]
		return newScope(func() ([]int, []int) { return p.referencers(k), p.admittedReferencers(k) }), p.createConfig(ctx, k)
	case eventConfigDelete:
		p.exists[k] = false
		scope := newScope(func() ([]int, []int) { return p.referencers(k), nil })
		return scope, client.IgnoreNotFound(c.Delete(ctx, &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: f.extensions[k].name}}))
	case eventConfigSettings, eventConfigCA, eventConfigURL:
		switch ev.Kind {
		case eventConfigSettings:
			f.extensions[k].revision++
			ev.Target += fmt.Sprintf(" -> revision %d", f.extensions[k].revision)
		case eventConfigCA:
			p.extendedCA[k] = !p.extendedCA[k]
			f.extensions[k].ca = p.baseCA[k]
			if p.extendedCA[k] {
				f.extensions[k].ca = append(slices.Clone(p.baseCA[k]), p.nextCA...)
			}
			ev.Target += fmt.Sprintf(" -> extended CA: %t", p.extendedCA[k])
		case eventConfigURL:
			f.extensions[k].byName = !f.extensions[k].byName
			ev.Target += " -> " + f.extensions[k].endpoint()
		}
		return p.specChanged(k, ev.Kind), f.updateConfig(ctx, c, k)
	case eventConfigSelector:
		before := p.admissions()
		current := f.extensions[k].selector
		next := selectors[p.rng.IntN(len(selectors))]
		for equalSelector(next, current) {
			next = selectors[p.rng.IntN(len(selectors))]
		}
		f.extensions[k].selector = next.DeepCopy()
		ev.Target = fmt.Sprintf("%s -> %s", f.extensions[k].name, metav1.FormatLabelSelector(next))
		ev.OptimumReconciles, ev.OptimumCalls = p.flipped(before)
		return nil, f.updateConfig(ctx, c, k)
	case eventNamespaceLabel:
		name := f.namespaces[p.rng.IntN(len(f.namespaces))]
		before := p.admissions()
		tier := benchfixture.OtherTier(f.labels[name][tierLabel])
		f.labels[name] = map[string]string{tierLabel: tier}
		ev.Target = name + " -> " + tier
		ev.OptimumReconciles, ev.OptimumCalls = p.flipped(before)
		patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"`+tierLabel+`":"`+tier+`"}}}`))
		return nil, c.Patch(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, patch)
	case eventHandlerToggle:
		p.hasDiscover[k] = !p.hasDiscover[k]
		ev.Target = fmt.Sprintf("%s serves DiscoverVariables: %t", f.extensions[k].name, p.hasDiscover[k])
		f.extensions[k].server.SetHandlers(p.handlersOf(k))
		var scope *scopedOptimum
		// A Discovery that fails finds nothing: the recovery will.
		if !p.failing[k] {
			p.recorded[k] = p.hasDiscover[k]
			scope = newScope(func() ([]int, []int) { return p.referencers(k), p.admittedReferencers(k) })
		}
		// Discovery runs again when asked to.
		return scope, p.touchConfig(ctx, k)
	case eventDiscoveryFails:
		// What the controller is still to discover would be lost to the
		// failure, which the model cannot time: it waits for it first.
		if err := p.awaitModel(ctx, k); err != nil {
			return nil, err
		}
		p.failing[k] = true
		f.extensions[k].server.SetFaults(discoveryHook, sampleextension.Faults{ErrorRate: 1})
		// The handlers status records stay registered, as they were.
		return nil, p.touchConfig(ctx, k)
	case eventDiscoveryRecovers:
		f.extensions[k].server.SetFaults(discoveryHook, sampleextension.Faults{})
		return p.recovered(k), p.touchConfig(ctx, k)
	case eventClassReference:
		i := p.rng.IntN(len(f.classes))
		f.classConfig[i] = p.rng.IntN(len(f.extensions))
		p.flavour[i] = flavours[p.rng.IntN(len(flavours))]
		ev.Target = fmt.Sprintf("%s -> %s/%s", f.classes[i], f.extensions[f.classConfig[i]].name, p.flavour[i])
		ev.OptimumReconciles = 1
		if f.admitted(i) {
			ev.OptimumCalls = p.requests([]int{i})
		}
		return nil, p.setClassPatch(ctx, i)
	}
	return nil, fmt.Errorf("unknown event kind %q", ev.Kind)
}

// discoveryHook is the sample extension's fault target of Discovery calls.
const discoveryHook = "Discovery"

// handlersOf is what extension k advertises: every default handler, less
// DiscoverVariables while the drill has removed it.
func (p *propertyWorld) handlersOf(k int) []runtimehooksv1.ExtensionHandler {
	var out []runtimehooksv1.ExtensionHandler
	for _, h := range sampleextension.DefaultHandlers() {
		if h.Name == sampleextension.DiscoverVariablesHandler && !p.hasDiscover[k] {
			continue
		}
		h.TimeoutSeconds = ptr.To[int32](10)
		out = append(out, h)
	}
	return out
}

func (p *propertyWorld) createConfig(ctx context.Context, k int) error {
	e := p.h.fixture.extensions[k]
	// The deletion may still be in flight on the apiserver.
	deadline := time.Now().Add(p.o.Timeout)
	for {
		err := p.h.client.Create(ctx, e.object())
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		if err := pause(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}

// touchConfig asks for Discovery of config k at once, through the
// rediscover annotation: an update that changes no registration.
func (p *propertyWorld) touchConfig(ctx context.Context, k int) error {
	name := p.h.fixture.extensions[k].name
	patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"`+userfacing.RediscoverAnnotation+`":"`+strconv.FormatInt(time.Now().UnixNano(), 10)+`"}}}`))
	return p.h.client.Patch(ctx, &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: name}}, patch)
}

// setClassPatch rewrites ClusterClass i's patch from the model.
func (p *propertyWorld) setClassPatch(ctx context.Context, i int) error {
	f := p.h.fixture
	cc := &clusterv1.ClusterClass{}
	if err := p.h.client.Get(ctx, f.classes[i], cc); err != nil {
		return err
	}
	base := cc.DeepCopy()
	cc.Spec.Patches = f.clusterClass(i, p.settings(i)).Spec.Patches
	return p.h.client.Patch(ctx, cc, client.MergeFrom(base))
}

// restart stops the controller and starts a new one with the same flags.
func (p *propertyWorld) restart(ctx context.Context) error {
	last, err := p.counters(ctx)
	if err != nil {
		return err
	}
	p.h.controller.Stop()
	p.retired = last
	p.freshStart()
	p.restarts++
	p.h.controller, err = StartDropIn(ctx, p.controllerOptions(fmt.Sprintf("property-controller-%d.log", p.restarts)))
	return err
}

func (p *propertyWorld) controllerOptions(log string) ControllerOptions {
	args := append([]string{"--kube-api-qps", "500", "--kube-api-burst", "1000"}, p.args...)
	return ControllerOptions{Binary: p.h.env.Binary, Kubeconfig: p.h.env.Kubeconfig, Args: args, LogPath: filepath.Join(p.h.env.LogDir, log)}
}
