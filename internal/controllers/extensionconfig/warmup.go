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

package extensionconfig

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// warmup registers the handlers every ExtensionConfig's status already
// records, then opens the registry's gate to WarmedUp. It calls no extension, so a dead
// extension cannot keep the manager from starting (Cluster API's warm-up
// re-runs discovery and exits when one is down); the controller refreshes
// discovery in the background.
type warmup struct {
	reader   client.Reader
	registry *registry.Registry
	proven   *provenClientConfigs
}

var (
	_ manager.Runnable               = &warmup{}
	_ manager.LeaderElectionRunnable = &warmup{}
	_ manager.Runnable               = &leaderSync{}
	_ manager.LeaderElectionRunnable = &leaderSync{}
)

// NeedLeaderElection is false: every replica needs a warm registry to be
// ready, as a standby too.
func (w *warmup) NeedLeaderElection() bool { return false }

// Start lists ExtensionConfigs until the apiserver answers, registers them
// and returns. It never returns an error: that would stop the manager.
func (w *warmup) Start(ctx context.Context) error {
	log := ctrl.LoggerFrom(ctx).WithName("warmup")
	// A replica that starts as leader waits on this list too: a refusal is
	// named in every call until it passes.
	list, ok := listExtensionConfigs(ctx, log, w.reader, func(err error) {
		w.registry.Gate().ListFailed(fmt.Errorf("list ExtensionConfigs: %w", err))
	})
	if !ok {
		return nil
	}
	syncFrom(log, w.registry, w.proven, list)
	w.registry.Gate().Open(registry.WarmedUp)
	log.Info("registry warmed up from recorded handlers", "extensionConfigs", len(list.Items), "handlers", w.registry.Len())
	return nil
}

// syncFrom makes the registry hold what the listed configs record, each
// under the last clientConfig known to work, and logs the records it could
// not take.
func syncFrom(log logr.Logger, reg *registry.Registry, proven *provenClientConfigs, list *runtimev1.ExtensionConfigList) []registration.Change {
	changes, skipped, unusable := reg.Sync(proven.servingAll(list.Items))
	for name, names := range skipped {
		logSkipped(log, name, names)
	}
	for name, err := range unusable {
		log.Error(err, "skip ExtensionConfig with unusable recorded handlers", "extensionConfig", name)
	}
	return changes
}

// firstDiscoveryTimeout bounds how long calls wait, after a replica takes
// the lead, for the first Discovery of configs that record no handlers:
// Cluster API's warm-up gives up on an extension after as long.
const firstDiscoveryTimeout = 60 * time.Second

// leaderSync rebuilds the registry from the apiserver when this replica
// becomes leader, before either controller reconciles: a standby warmed up
// hours ago holds configs deleted since, and settings and handlers changed
// since. Only the leader's controllers keep the registry current after that.
type leaderSync struct {
	reader   client.Reader
	registry *registry.Registry
	proven   *provenClientConfigs
	// awaited is the controller's channel for the configs calls wait for.
	awaited chan<- event.GenericEvent
}

// NeedLeaderElection is true: it runs on taking the lead.
func (s *leaderSync) NeedLeaderElection() bool { return true }

// Start lists ExtensionConfigs until the apiserver answers, makes the
// registry hold exactly what they record, and opens its gate to Rebuilt. It never
// returns an error: that would stop the manager.
func (s *leaderSync) Start(ctx context.Context) error {
	log := ctrl.LoggerFrom(ctx).WithName("leader-sync")
	// The start-up warm-up loads the same list; letting it finish first
	// keeps its older read from landing after ours.
	select {
	case <-s.registry.Gate().Done(registry.WarmedUp):
	case <-ctx.Done():
		return nil
	}
	// Until the list succeeds every extension call fails, naming why
	// (registry.Gate.Err): a call from the standby's registry could skip a
	// blocking hook of a config it never saw.
	list, ok := listExtensionConfigs(ctx, log, s.reader, func(err error) {
		s.registry.Gate().ListFailed(fmt.Errorf("list ExtensionConfigs: %w", err))
	})
	if !ok {
		return nil
	}
	changes := syncFrom(log, s.registry, s.proven, list)
	// A config that records no handlers has none registered: a blocking
	// hook would pass without it. Cluster API's warm-up discovers it before
	// any call; calls wait for its first successful Discovery here.
	var undiscovered []string
	for i := range list.Items {
		if ext := &list.Items[i]; ext.DeletionTimestamp.IsZero() && len(ext.Status.Handlers) == 0 {
			undiscovered = append(undiscovered, ext.Name)
		}
	}
	s.registry.Gate().AwaitFirstDiscovery(undiscovered, firstDiscoveryTimeout)
	s.registry.Gate().Open(registry.Rebuilt)
	log.Info("registry rebuilt on taking the lead", "extensionConfigs", len(list.Items), "handlers", s.registry.Len(), "changes", len(changes),
		"awaitingFirstDiscovery", len(undiscovered))
	// Each is reconciled even if no event comes for it (deleted since the
	// list, the informer never sees it), and its reconcile releases it.
	for _, name := range undiscovered {
		obj := &runtimev1.ExtensionConfig{}
		obj.Name = name
		select {
		case s.awaited <- event.GenericEvent{Object: obj}:
		case <-ctx.Done():
			return nil
		}
	}
	return nil
}

// listExtensionConfigs lists until the apiserver answers, with backoff,
// handing each failure to failed; it reports false only when ctx ends
// first.
func listExtensionConfigs(ctx context.Context, log logr.Logger, reader client.Reader, failed func(error)) (*runtimev1.ExtensionConfigList, bool) {
	backoff := 100 * time.Millisecond
	for {
		list := &runtimev1.ExtensionConfigList{}
		err := reader.List(ctx, list)
		if err == nil {
			return list, true
		}
		failed(err)
		log.Error(err, "list ExtensionConfigs; retrying", "in", backoff)
		select {
		case <-ctx.Done():
			return nil, false
		case <-time.After(backoff):
		}
		// Every extension call waits for the leader's list: retry at
		// Cluster API's warm-up interval, not slower.
		backoff = min(2*backoff, 2*time.Second)
	}
}
