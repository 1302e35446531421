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

package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Triggers of a ClusterClass enqueue.
const (
	TriggerClusterClass    = "clusterclass"
	TriggerExtensionConfig = "extensionconfig"
	TriggerNamespace       = "namespace"
	// TriggerTemplateCRD: a template CRD appeared, went or changed labels.
	TriggerTemplateCRD = "template_crd"
	// TriggerRefresh: a refreshed DiscoverVariables answer changed or failed.
	TriggerRefresh = "refresh"
)

// Outcomes of an ExtensionConfig registration event.
const (
	// EventUnchanged: the registration did not change in any way a
	// ClusterClass can observe.
	EventUnchanged = "unchanged"
	// EventNoReferencers: it changed, but no affected ClusterClass exists.
	EventNoReferencers = "no_referencers"
	// EventEnqueued: it enqueued at least one ClusterClass.
	EventEnqueued = "enqueued"
)

// Outcomes of an extension call.
const (
	CallSuccess  = "success"
	CallError    = "error"
	CallCacheHit = "cache_hit"
	CallShared   = "shared"
	// CallFailureShared: answered with a recent failure of the same
	// request, within its backoff, without calling the extension.
	CallFailureShared = "failure_shared"
)

var (
	// ExtensionConfigEvents counts ExtensionConfig registration events.
	ExtensionConfigEvents = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "runtime_sdk_extensionconfig_events_total",
		Help: "ExtensionConfig registration events (discovery results, deletions, warm-up), by whether they enqueued ClusterClasses.",
	}, []string{"outcome"})

	// ClusterClassEnqueued counts ClusterClass requests added to the queue.
	ClusterClassEnqueued = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "runtime_sdk_clusterclass_enqueued_total",
		Help: "ClusterClass reconcile requests enqueued, by what triggered them.",
	}, []string{"trigger"})

	// VariablesRefreshes counts refreshes of DiscoverVariables answers in
	// use, by outcome: unchanged, changed, failed.
	VariablesRefreshes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "runtime_sdk_variables_refreshes_total",
		Help: "DiscoverVariables answers in use asked again after --variables-cache-max-age, by outcome (unchanged, changed, failed).",
	}, []string{"outcome"})
	// ExtensionCalls counts calls to Runtime Extensions, cache hits included.
	ExtensionCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "runtime_sdk_extension_calls_total",
		Help: "Runtime Extension calls by hook, handler and outcome (success, error, and cache_hit, shared, failure_shared that cost no call).",
	}, []string{"hook", "handler", "outcome"})

	// ExtensionCallDuration observes calls that reached the network.
	ExtensionCallDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "runtime_sdk_extension_call_duration_seconds",
		Help:    "Latency of Runtime Extension calls that reached the extension.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"hook"})

	// RegisteredHandlers is the number of handlers in the registry.
	RegisteredHandlers = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "runtime_sdk_registered_handlers",
		Help: "Handlers registered from discovered ExtensionConfigs.",
	})

	// IndexedReferences is the number of handler references the
	// ExtensionConfig -> ClusterClass index holds.
	IndexedReferences = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "runtime_sdk_index_references",
		Help: "Distinct (ClusterClass, handler) references held by the index.",
	})

	// IndexedClusterClasses is the number of ClusterClasses with at least
	// one handler reference.
	IndexedClusterClasses = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "runtime_sdk_index_clusterclasses",
		Help: "ClusterClasses that reference at least one Runtime Extension handler.",
	})

	// VariableSchemasCached is the number of variable schema validation
	// results kept for the ClusterClasses that hold them.
	VariableSchemasCached = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "runtime_sdk_variable_schemas_cached",
		Help: "Variable schema validation results kept, one per distinct variable ClusterClasses hold.",
	})

	// ResponseCacheLookups counts the drop-in's GeneratePatches and
	// ValidateTopology calls of configs that opted in to its response
	// cache, by hook, handler and result (hit, miss, bypass).
	ResponseCacheLookups = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "runtime_sdk_response_cache_lookups_total",
		Help: "GeneratePatches and ValidateTopology calls of ExtensionConfigs with a response cache max age, by hook, handler and result: hit (answered from memory), miss (sent), bypass (sent, as its items cannot be keyed).",
	}, []string{"hook", "handler", "result"})
	// ResponseCacheEntries is the number of answers held per handler.
	ResponseCacheEntries = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "runtime_sdk_response_cache_entries",
		Help: "GeneratePatches and ValidateTopology answers held by the response cache, by handler.",
	}, []string{"handler"})
	// ResponseCacheBytes is the estimated size of every answer held.
	ResponseCacheBytes = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "runtime_sdk_response_cache_bytes",
		Help: "Estimated bytes of the answers the response cache holds.",
	})

	// VariablesCacheEntries is the number of cached DiscoverVariables answers.
	VariablesCacheEntries = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "runtime_sdk_variables_cache_entries",
		Help: "DiscoverVariables answers held by the call cache.",
	})
)

// The metrics of observe mode (runtime-sdk-controller), which counts per
// ExtensionConfig event what Cluster API's scan and the index would
// reconcile.
var (
	// ObservedEvents counts the ExtensionConfig events observed, by type.
	ObservedEvents = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "runtime_sdk_observed_extensionconfig_events_total",
		Help: "ExtensionConfig events seen in observe mode, by type (add, update, delete).",
	}, []string{"type"})
	// ObservedReconciles counts the ClusterClass reconciles each mapping
	// causes: the distinct ClusterClasses an event enqueues.
	ObservedReconciles = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "runtime_sdk_observed_clusterclass_reconciles_total",
		Help: "ClusterClass reconciles the observed ExtensionConfig events cause, by mapping: scan (Cluster API) or index.",
	}, []string{"mapping"})
	// ObservedScanEnqueues counts what Cluster API's scan adds to its
	// queue: for an update, the mapping of the old object and of the new
	// one. The queue folds an item added twice before a worker takes it
	// into one reconcile, which is what ObservedReconciles counts.
	ObservedScanEnqueues = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "runtime_sdk_observed_scan_enqueues_total",
		Help: "ClusterClass requests Cluster API's scan mapping enqueues for the observed ExtensionConfig events (old and new object of each update).",
	})
)

var register, registerObserved sync.Once

// Collectors are the controllers' own metrics, the ones Register adds.
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{
		ExtensionConfigEvents, ClusterClassEnqueued, ExtensionCalls, ExtensionCallDuration,
		RegisteredHandlers, IndexedReferences, IndexedClusterClasses, VariablesCacheEntries, VariablesRefreshes,
		VariableSchemasCached, ResponseCacheLookups, ResponseCacheEntries, ResponseCacheBytes,
	}
}

// Register adds the controllers' metrics to controller-runtime's registry.
// It is safe to call more than once (tests build several managers in one
// process).
func Register() {
	register.Do(func() {
		ctrlmetrics.Registry.MustRegister(Collectors()...)
	})
}

// RegisterObserved adds observe mode's metrics, for a manager that runs it.
// It is safe to call more than once.
func RegisterObserved() {
	registerObserved.Do(func() {
		ctrlmetrics.Registry.MustRegister(ObservedEvents, ObservedReconciles, ObservedScanEnqueues)
	})
}

// ForgetHandler deletes the call series of a handler that is no longer
// registered, or of an ExtensionConfig that is gone (its Discovery calls),
// so that configs and handlers that come and go leave no series behind.
func ForgetHandler(handler string) {
	ExtensionCalls.DeletePartialMatch(prometheus.Labels{"handler": handler})
	ResponseCacheLookups.DeletePartialMatch(prometheus.Labels{"handler": handler})
}

// ObserveCall records one extension call.
func ObserveCall(hook, handler, outcome string, started time.Time) {
	ExtensionCalls.WithLabelValues(hook, handler, outcome).Inc()
	if outcome == CallSuccess || outcome == CallError {
		ExtensionCallDuration.WithLabelValues(hook).Observe(time.Since(started).Seconds())
	}
}

// ResponseCache is the response cache's Observer: it keeps the
// runtime_sdk_response_cache_* series.
type ResponseCache struct{}

// Lookup counts one lookup.
func (ResponseCache) Lookup(hook, handler, result string) {
	ResponseCacheLookups.WithLabelValues(hook, handler, result).Inc()
}

// Entries sets a handler's entries, deleting the series of a handler that
// holds none, and the bytes of all.
func (ResponseCache) Entries(handler string, entries int, totalBytes int64) {
	if entries == 0 {
		ResponseCacheEntries.DeleteLabelValues(handler)
	} else {
		ResponseCacheEntries.WithLabelValues(handler).Set(float64(entries))
	}
	ResponseCacheBytes.Set(float64(totalBytes))
}
