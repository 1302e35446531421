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

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/watchfilter"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
)

type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]

// enqueue adds requests and counts them under their trigger.
func enqueue(q queue, trigger string, requests ...reconcile.Request) {
	for _, req := range requests {
		q.Add(req)
	}
	metrics.ClusterClassEnqueued.WithLabelValues(trigger).Add(float64(len(requests)))
}

// clusterClassSource enqueues a ClusterClass when it is created or deleted,
// or when its generation or annotations change (paused). Our own status
// writes and resyncs change neither, and enqueue nothing. It also keeps the
// index size gauges.
func clusterClassSource(c ctrlcache.Cache, sizes *indexSizes) source.Source {
	request := func(cc *clusterv1.ClusterClass) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: cc.Namespace, Name: cc.Name}}
	}
	return source.Kind(c, &clusterv1.ClusterClass{}, handler.TypedFuncs[*clusterv1.ClusterClass, reconcile.Request]{
		CreateFunc: func(_ context.Context, e event.TypedCreateEvent[*clusterv1.ClusterClass], q queue) {
			sizes.set(e.Object)
			enqueue(q, metrics.TriggerClusterClass, request(e.Object))
		},
		UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[*clusterv1.ClusterClass], q queue) {
			sizes.set(e.ObjectNew)
			if worthReconciling(e.ObjectOld, e.ObjectNew) {
				enqueue(q, metrics.TriggerClusterClass, request(e.ObjectNew))
			}
		},
		DeleteFunc: func(_ context.Context, e event.TypedDeleteEvent[*clusterv1.ClusterClass], q queue) {
			sizes.remove(e.Object)
			enqueue(q, metrics.TriggerClusterClass, request(e.Object))
		},
	})
}

// worthReconciling tells whether an update of a ClusterClass can change
// what its reconcile writes: a new generation (spec), new annotations
// (paused) or a new watch-filter label (which manager it belongs to).
// Status writes, ours included, and resyncs change none of them.
func worthReconciling(old, new *clusterv1.ClusterClass) bool {
	return old.Generation != new.Generation || !equality.Semantic.DeepEqual(old.Annotations, new.Annotations) ||
		watchfilter.LabelChanged(old, new)
}

// namespaceSource enqueues, on a Namespace label change, the ClusterClasses
// in it whose referenced configs now admit or reject it. Only metadata is
// watched.
func (r *Reconciler) namespaceSource(c ctrlcache.Cache, mapper extensionindex.Mapper) source.Source {
	return source.Kind(c, extensionindex.NamespaceMetadata(), handler.TypedFuncs[*metav1.PartialObjectMetadata, reconcile.Request]{
		UpdateFunc: func(ctx context.Context, e event.TypedUpdateEvent[*metav1.PartialObjectMetadata], q queue) {
			if equality.Semantic.DeepEqual(e.ObjectOld.Labels, e.ObjectNew.Labels) {
				return
			}
			requests, err := mapper.RequestsForNamespace(ctx, e.ObjectNew.Name, e.ObjectOld.Labels, e.ObjectNew.Labels, r.Registry.SelectorOf)
			if err != nil {
				ctrl.LoggerFrom(ctx).Error(err, "map namespace label change to ClusterClasses", "namespace", e.ObjectNew.Name)
				return
			}
			enqueue(q, metrics.TriggerNamespace, requests...)
		},
	})
}

// indexSizes tracks how many references the index holds, for the gauges.
type indexSizes struct {
	mu    sync.Mutex
	refs  map[types.NamespacedName]int
	total int
}

func (s *indexSizes) set(cc *clusterv1.ClusterClass) {
	s.update(types.NamespacedName{Namespace: cc.Namespace, Name: cc.Name}, len(extensionindex.HandlerNames(cc)))
}

func (s *indexSizes) remove(cc *clusterv1.ClusterClass) {
	s.update(types.NamespacedName{Namespace: cc.Namespace, Name: cc.Name}, 0)
}

func (s *indexSizes) update(name types.NamespacedName, refs int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refs == nil {
		s.refs = map[types.NamespacedName]int{}
	}
	s.total += refs - s.refs[name]
	if refs == 0 {
		delete(s.refs, name)
	} else {
		s.refs[name] = refs
	}
	metrics.IndexedReferences.Set(float64(s.total))
	metrics.IndexedClusterClasses.Set(float64(len(s.refs)))
}
