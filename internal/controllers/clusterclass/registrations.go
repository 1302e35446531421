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

package clusterclass

import (
	"context"
	"sync"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// registrationEvents turns what the registry tells its subscribers into
// generic events of the ClusterClass controller's channel source. The
// registry tells after it is updated, so a reconcile never runs ahead of the
// registration it depends on, which an ExtensionConfig object event could
// (the spec changes before Discovery registers anew). A subscriber must not
// block the registering caller, the ExtensionConfig controller's worker:
// changes wait in a queue of their own, in order, until the source takes
// them.
type registrationEvents struct {
	registry *registry.Registry
	out      chan event.TypedGenericEvent[[]registration.Change]

	mu      sync.Mutex
	pending [][]registration.Change
	wake    chan struct{}
}

var _ manager.LeaderElectionRunnable = &registrationEvents{}

func newRegistrationEvents(reg *registry.Registry) *registrationEvents {
	return &registrationEvents{
		registry: reg,
		out:      make(chan event.TypedGenericEvent[[]registration.Change]),
		wake:     make(chan struct{}, 1),
	}
}

// NeedLeaderElection is true: it runs with the controller it feeds.
func (e *registrationEvents) NeedLeaderElection() bool { return true }

// Start subscribes to the registry and hands each change set, empty ones
// too (they count the events that needed no work), to the source.
func (e *registrationEvents) Start(ctx context.Context) error {
	e.registry.Subscribe(ctx, func(changes []registration.Change) {
		e.mu.Lock()
		e.pending = append(e.pending, changes)
		e.mu.Unlock()
		select {
		case e.wake <- struct{}{}:
		default:
		}
	})
	for {
		e.mu.Lock()
		batch := e.pending
		e.pending = nil
		e.mu.Unlock()
		for _, changes := range batch {
			select {
			case e.out <- event.TypedGenericEvent[[]registration.Change]{Object: changes}:
			case <-ctx.Done():
				return nil
			}
		}
		select {
		case <-e.wake:
		case <-ctx.Done():
			return nil
		}
	}
}

// events is the channel the controller's source reads.
func (e *registrationEvents) events() <-chan event.TypedGenericEvent[[]registration.Change] {
	return e.out
}

// clusterClassesFor maps a registration change set to the ClusterClasses
// that can observe it, and drops the variables answers it made invalid.
func (r *Reconciler) clusterClassesFor(mapper extensionindex.Mapper) func(context.Context, []registration.Change) []reconcile.Request {
	return func(ctx context.Context, changes []registration.Change) []reconcile.Request {
		log := ctrl.LoggerFrom(ctx).WithName("registry-events")
		metrics.RegisteredHandlers.Set(float64(r.Registry.Len()))
		if len(changes) == 0 {
			metrics.ExtensionConfigEvents.WithLabelValues(metrics.EventUnchanged).Inc()
			return nil
		}
		// Answers cached under a changed or removed registration are never
		// valid again; dropping them keeps the cache bounded. A selector
		// change keeps them: admission is not part of a call.
		for _, c := range changes {
			if c.Kind != registration.SelectorChanged {
				r.Cache.Forget(c.Handler)
			}
			if c.Kind == registration.Removed {
				metrics.ForgetHandler(c.Handler)
			}
		}
		metrics.VariablesCacheEntries.Set(float64(r.Cache.Len()))
		requests, err := mapper.RequestsForChanges(ctx, changes)
		if err != nil {
			log.Error(err, "map registration changes to ClusterClasses")
			return nil
		}
		log.V(4).Info("registration changed", "changes", len(changes), "clusterClasses", len(requests))
		if len(requests) == 0 {
			metrics.ExtensionConfigEvents.WithLabelValues(metrics.EventNoReferencers).Inc()
			return nil
		}
		metrics.ExtensionConfigEvents.WithLabelValues(metrics.EventEnqueued).Inc()
		metrics.ClusterClassEnqueued.WithLabelValues(metrics.TriggerExtensionConfig).Add(float64(len(requests)))
		return requests
	}
}
