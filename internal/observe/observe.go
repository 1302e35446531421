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

package observe

import (
	"context"
	"fmt"

	toolscache "k8s.io/client-go/tools/cache"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scanmapping"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
)

// Mappings compared.
const (
	MappingScan  = "scan"
	MappingIndex = "index"
)

// Observer watches ExtensionConfigs and accounts for both mappings. Cache
// is the manager's cache, with the extensionindex indexes registered.
type Observer struct {
	Cache ctrlcache.Cache
}

// Start registers the event handler; it implements manager.Runnable.
func (o *Observer) Start(ctx context.Context) error {
	metrics.RegisterObserved()
	informer, err := o.Cache.GetInformer(ctx, &runtimev1.ExtensionConfig{})
	if err != nil {
		return fmt.Errorf("ExtensionConfig informer: %w", err)
	}
	log := ctrl.LoggerFrom(ctx).WithName("observe")
	account := func(kind string, old, new *runtimev1.ExtensionConfig) {
		// The event is counted last, so a reader that sees it sees its
		// reconciles too.
		defer metrics.ObservedEvents.WithLabelValues(kind).Inc()
		// Cluster API maps both objects of an update, each with a scan.
		enqueued := 0
		scan := map[reconcile.Request]struct{}{}
		for _, ext := range []*runtimev1.ExtensionConfig{old, new} {
			if ext == nil {
				continue
			}
			requests, err := scanmapping.Map(ctx, o.Cache, ext)
			if err != nil {
				log.Error(err, "scan mapping", "extensionConfig", ext.Name)
				return
			}
			enqueued += len(requests)
			for _, r := range requests {
				scan[r] = struct{}{}
			}
		}
		index, err := extensionindex.Mapper{Reader: o.Cache}.RequestsForExtensionConfig(ctx, old, new)
		if err != nil {
			log.Error(err, "index mapping")
			return
		}
		metrics.ObservedScanEnqueues.Add(float64(enqueued))
		metrics.ObservedReconciles.WithLabelValues(MappingScan).Add(float64(len(scan)))
		metrics.ObservedReconciles.WithLabelValues(MappingIndex).Add(float64(len(index)))
		log.V(4).Info("observed", "event", kind, "scan", len(scan), "scanEnqueues", enqueued, "index", len(index))
	}
	_, err = informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if ext, ok := obj.(*runtimev1.ExtensionConfig); ok {
				account("add", nil, ext)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, okOld := oldObj.(*runtimev1.ExtensionConfig)
			new, okNew := newObj.(*runtimev1.ExtensionConfig)
			// A resync delivers the object unchanged; Cluster API's
			// ResourceIsChanged predicate drops it before the scan.
			if okOld && okNew && old.ResourceVersion != new.ResourceVersion {
				account("update", old, new)
			}
		},
		DeleteFunc: func(obj any) {
			if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			if ext, ok := obj.(*runtimev1.ExtensionConfig); ok {
				account("delete", ext, nil)
			}
		},
	})
	return err
}
