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

package userfacing

import (
	"time"

	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

// Defaults of the calls to Runtime Extensions.
const (
	// DefaultCallTimeout bounds a call whose handler sets no timeout, and
	// every Discovery call, as Cluster API does.
	DefaultCallTimeout = time.Duration(runtimehooksv1.DefaultHandlersTimeoutSeconds) * time.Second
	// DefaultMaxResponseBytes bounds the body of an HTTP 200 answer.
	// Cluster API's server library reads requests of up to 20 MiB, and the
	// largest answer such a request can call for, a GeneratePatches patch
	// replacing every object it carries, is as large again in base64
	// (patches are bytes), 4/3 of it: under 27 MiB. 32 MiB holds that.
	DefaultMaxResponseBytes = 32 << 20
)

// DefaultRediscoveryInterval is how often a discovered ExtensionConfig is
// asked again. Cluster API re-discovers on every informer resync; a
// deliberate, longer interval costs a few calls per hour per extension.
const DefaultRediscoveryInterval = 10 * time.Minute

// MaxRetryDelay is the longest our two controllers wait before they retry
// a reconcile that failed, however often it failed before: a failed
// Discovery or DiscoverVariables, and a CA Secret that is missing or has
// no ca.crt, which a watch may never report (with --namespace it sees no
// other namespace). So an extension that comes back is used again within
// a minute of it, whatever the length of the outage. controller-runtime's
// own backoff doubles from 5 ms to 1000 s, about 17 minutes; Cluster API
// retries at every resync (--sync-period, 10 minutes). A reconcile that
// keeps failing costs one try a minute.
const MaxRetryDelay = time.Minute

// Defaults of the cache of DiscoverVariables answers.
const (
	// DefaultVariablesCacheMaxAge is how long Cluster API's ClusterClass
	// controller reuses a DiscoverVariables answer, and so the drop-in's,
	// which no flag changes; ours expires answers on registration changes
	// too.
	DefaultVariablesCacheMaxAge = 10 * time.Minute

	// DefaultVariablesCacheMaxEntries is the bound of a cache whose options
	// leave MaxEntries zero. The live set is one answer per distinct
	// (handler, effective settings) that ClusterClasses use, a few per
	// extension even on large management clusters (the load tool's 1000
	// ClusterClasses need one per ExtensionConfig), so ten thousand holds
	// it with room to spare and only cuts what nobody asks for any more.
	DefaultVariablesCacheMaxEntries = 10_000

	// DefaultVariablesCacheMaxBytes is the byte bound of a cache whose
	// options leave MaxBytes zero. The live set is a few answers per
	// extension, kilobytes each in practice, but one may be 32 MiB on the
	// wire (DefaultMaxResponseBytes), and decoded it holds more: about 3.2
	// times its JSON for a schema of typed, described properties
	// (measured; see variablescache.Retained), 100 MiB. 128 MiB holds one
	// such answer whole, or thousands of ordinary ones, and even with the
	// garbage collector's headroom (at GOGC=100 the heap grows to twice
	// what is live) leaves room under the 512 MiB memory limit
	// config/manager sets. test/variablescachememory measures a process
	// asking forty 25 MiB answers under this bound: about 165 MiB resident
	// at rest and 460 MiB at its peak, most of that the answer in flight
	// and the collector's headroom; 3.5 GiB at rest without it.
	DefaultVariablesCacheMaxBytes = 128 << 20

	// DefaultFailureBackoff and DefaultMaxFailureBackoff: a failed call is
	// shared with every caller of the same key for DefaultFailureBackoff,
	// doubling with each consecutive failure up to
	// DefaultMaxFailureBackoff.
	DefaultFailureBackoff    = 500 * time.Millisecond
	DefaultMaxFailureBackoff = 30 * time.Second
)

// DefaultVariableVerdictsMaxEntries bounds the remembered validation
// results of published variables: far more distinct variables than
// management clusters publish, at a few hundred bytes each.
const DefaultVariableVerdictsMaxEntries = 20_000

// Defaults of the cache of GeneratePatches and ValidateTopology answers
// that ResponseCacheMaxAgeAnnotation turns on.
const (
	DefaultResponseCacheMaxEntries = 10000
	DefaultResponseCacheMaxBytes   = 64 << 20
)

// Defaults of the drop-in's flags for our two controllers and its client
// of the management cluster's kube-apiserver, which are Cluster API's own
// (cmd/core-manager/cmdline's test holds them equal to its manager's).
const (
	DefaultKubeAPIQPS                 = 100
	DefaultKubeAPIBurst               = 200
	DefaultClusterClassConcurrency    = 10
	DefaultExtensionConfigConcurrency = 10
)
