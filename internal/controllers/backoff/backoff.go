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

package backoff

import (
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// firstDelay is controller-runtime's first retry delay with its priority
// queue, which Cluster API's manager runs: a failure that passes at once
// costs what it costs under Cluster API's manager.
const firstDelay = 5 * time.Millisecond

// RateLimiter returns a new rate limiter for one controller's queue: a
// failed item waits 5 ms, doubling with each consecutive failure up to
// userfacing.MaxRetryDelay, and starts again from 5 ms after a success.
// Like controller-runtime's default with the priority queue, it keeps no
// overall rate: concurrency bounds the calls in flight, and the variables
// cache shares one failed call among every ClusterClass that asks.
func RateLimiter() workqueue.TypedRateLimiter[reconcile.Request] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](firstDelay, userfacing.MaxRetryDelay)
}
