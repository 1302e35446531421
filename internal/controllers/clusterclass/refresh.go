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
	"time"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/variablescache"
)

// RefreshIntervalFor is how often to look for answers due for a refresh
// under a cache max age: a quarter of it, between 100 ms and 5 s, so a
// rollout reaches ClusterClasses within the max age and a few seconds.
func RefreshIntervalFor(maxAge time.Duration) time.Duration {
	if maxAge <= 0 {
		return 0
	}
	return min(max(maxAge/4, 100*time.Millisecond), 5*time.Second)
}

// refreshSource enqueues the ClusterClasses whose DiscoverVariables answer
// a refresh found changed or failing: an extension rolled out behind an
// unchanged registration reaches exactly them.
func (r *Reconciler) refreshSource() source.Source {
	return source.Func(func(ctx context.Context, q queue) error {
		r.Cache.SetOnChange(func(users []types.NamespacedName) {
			requests := make([]reconcile.Request, 0, len(users))
			for _, user := range users {
				requests = append(requests, reconcile.Request{NamespacedName: user})
			}
			ctrl.LoggerFrom(ctx).V(4).Info("refreshed answer changed", "clusterClasses", len(requests))
			enqueue(q, metrics.TriggerRefresh, requests...)
		})
		return nil
	})
}

// refresher asks again, once per max age, for the DiscoverVariables answers
// ClusterClasses use. It runs on the leader only, whose controller hears
// what changed.
type refresher struct {
	cache    *VariablesCache
	interval time.Duration
}

// Start refreshes until ctx ends.
func (f *refresher) Start(ctx context.Context) error {
	ticker := time.NewTicker(f.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
			outcomes := map[variablescache.RefreshOutcome]int{}
			// Counted per call, as each returns: the calls an extension
			// served and the refreshes counted agree but for one in flight.
			f.cache.RefreshEach(ctx, func(outcome variablescache.RefreshOutcome) {
				metrics.VariablesRefreshes.WithLabelValues(string(outcome)).Inc()
				outcomes[outcome]++
			})
			if len(outcomes) > 0 {
				ctrl.LoggerFrom(ctx).V(4).Info("refreshed answers in use", "outcomes", outcomes)
			}
		}
	}
}
