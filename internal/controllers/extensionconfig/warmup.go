package extensionconfig

import (
	"context"
	"time"

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
)

// NeedLeaderElection is false: every replica needs a warm registry, so a
// new leader can reconcile at once.
func (w *warmup) NeedLeaderElection() bool { return false }

// Start lists ExtensionConfigs until the apiserver answers, registers them
// and returns. It never returns an error: that would stop the manager.
func (w *warmup) Start(ctx context.Context) error {
	log := ctrl.LoggerFrom(ctx).WithName("warmup")
	backoff := 100 * time.Millisecond
	for {
		list := &runtimev1.ExtensionConfigList{}
		err := w.reader.List(ctx, list)
		if err == nil {
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
		log.Error(err, "list ExtensionConfigs for warm-up; retrying", "in", backoff)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 10*time.Second)
	}
}
