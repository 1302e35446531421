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

	toolscache "k8s.io/client-go/tools/cache"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
)

// followExtensionConfigs keeps, from the manager's informer, which runs on
// every replica, what a standby needs the moment it takes the lead: each
// config's last proven clientConfig, so that calls keep going where they
// went, and each config's response cache max age, so that the new
// leader's first topology pass already stores its answers (it holds none
// of the old leader's).
func (r *Reconciler) followExtensionConfigs(ctx context.Context, informers ctrlcache.Informers) error {
	informer, err := informers.GetInformer(ctx, &runtimev1.ExtensionConfig{})
	if err != nil {
		return fmt.Errorf("get the ExtensionConfig informer: %w", err)
	}
	seen := func(obj any) {
		if ext, ok := obj.(*runtimev1.ExtensionConfig); ok {
			r.proven.observe(ext)
			r.ResponseCache.SetMaxAge(ext.Name, responseCacheMaxAge(ext, r.WatchFilterValue))
		}
	}
	_, err = informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    seen,
		UpdateFunc: func(_, obj any) { seen(obj) },
		DeleteFunc: func(obj any) {
			if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			if ext, ok := obj.(*runtimev1.ExtensionConfig); ok {
				r.proven.forgetObject(ext)
				r.ResponseCache.SetMaxAge(ext.Name, 0)
			}
		},
	})
	if err != nil {
		return fmt.Errorf("follow ExtensionConfigs on every replica: %w", err)
	}
	return nil
}
