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

// Package queuetest shows a test the rate limiter a controller's queue is
// built with, which controller-runtime keeps to itself.
package queuetest

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// RateLimiter is the rate limiter of a controller's queue.
type RateLimiter = workqueue.TypedRateLimiter[reconcile.Request]

// Capture returns options whose NewQueue builds controller-runtime's
// plain rate-limited queue and sends the rate limiter it is built with,
// once the controller starts, on the channel returned.
func Capture(options controller.Options) (controller.Options, <-chan RateLimiter) {
	limiters := make(chan RateLimiter, 1)
	options.NewQueue = func(_ string, limiter RateLimiter) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		limiters <- limiter
		return workqueue.NewTypedRateLimitingQueue(limiter)
	}
	return options, limiters
}

// DelayAfter returns how long limiter makes an item that failed n times
// in a row wait before its next try. It counts the failures of an item
// named after n, which no controller reconciles.
func DelayAfter(limiter RateLimiter, n int) time.Duration {
	item := reconcile.Request{NamespacedName: types.NamespacedName{Name: fmt.Sprintf("queuetest-%d-failures", n)}}
	var delay time.Duration
	for range n {
		delay = limiter.When(item)
	}
	limiter.Forget(item)
	return delay
}

// ExpectCapped fails t unless the controller builds its queue within
// timeout, with a rate limiter that makes an item that failed n times in
// a row wait at most limit.
func ExpectCapped(t testing.TB, limiters <-chan RateLimiter, n int, limit, timeout time.Duration) {
	t.Helper()
	select {
	case limiter := <-limiters:
		if got := DelayAfter(limiter, n); got > limit {
			t.Errorf("after %d failed reconciles the next waits %v, want at most %v", n, got, limit)
		}
	case <-time.After(timeout):
		t.Fatal("the controller built no queue")
	}
}
