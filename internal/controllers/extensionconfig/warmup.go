package extensionconfig

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
)

// warmup registers the handlers every ExtensionConfig's status already
// records, then marks the registry ready. It calls no extension, so a dead
// extension cannot keep the manager from starting (Cluster API's warm-up
// re-runs discovery and exits when one is down); the controller refreshes
// discovery in the background.
type warmup struct {
	reader   client.Reader
	registry *registry.Registry
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
	list, ok := listExtensionConfigs(ctx, log, w.reader, func(error) {})
	if !ok {
		return nil
	}
	registered := 0
	for i := range list.Items {
		ext := &list.Items[i]
		if len(ext.Status.Handlers) == 0 {
			continue
		}
		_, skipped, err := w.registry.Register(ext)
		logSkipped(log, ext.Name, skipped)
		if err != nil {
			log.Error(err, "skip ExtensionConfig with unusable recorded handlers", "extensionConfig", ext.Name)
			continue
		}
		registered++
	}
	w.registry.MarkReady()
	log.Info("registry warmed up from recorded handlers", "extensionConfigs", registered, "handlers", w.registry.Len())
	return nil
}

// leaderSync rebuilds the registry from the apiserver when this replica
// becomes leader, before either controller reconciles: a standby warmed up
// hours ago holds configs deleted since, and settings and handlers changed
// since. Only the leader's controllers keep the registry current after that.
type leaderSync struct {
	reader   client.Reader
	registry *registry.Registry
}

// NeedLeaderElection is true: it runs on taking the lead.
func (s *leaderSync) NeedLeaderElection() bool { return true }

// Start lists ExtensionConfigs until the apiserver answers, makes the
// registry hold exactly what they record, and marks it synced. It never
// returns an error: that would stop the manager.
func (s *leaderSync) Start(ctx context.Context) error {
	log := ctrl.LoggerFrom(ctx).WithName("leader-sync")
	// The start-up warm-up loads the same list; letting it finish first
	// keeps its older read from landing after ours.
	select {
	case <-s.registry.Ready():
	case <-ctx.Done():
		return nil
	}
	// Until the list succeeds every extension call fails, naming why
	// (registry.Current): a call from the standby's registry could skip a
	// blocking hook of a config it never saw.
	list, ok := listExtensionConfigs(ctx, log, s.reader, func(err error) {
		s.registry.SetSyncError(fmt.Errorf("list ExtensionConfigs: %w", err))
	})
	if !ok {
		return nil
	}
	changes, skipped := s.registry.Sync(list.Items)
	for name, names := range skipped {
		logSkipped(log, name, names)
	}
	s.registry.MarkSynced()
	log.Info("registry rebuilt on taking the lead", "extensionConfigs", len(list.Items), "handlers", s.registry.Len(), "changes", len(changes))
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
