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
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

func TestRateLimiter_DoublesFrom5msUpToTheCapAndRestartsAfterASuccess(t *testing.T) {
	limiter := RateLimiter()
	item := reconcile.Request{NamespacedName: types.NamespacedName{Name: "config"}}
	other := reconcile.Request{NamespacedName: types.NamespacedName{Name: "other"}}
	want := []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond}
	for failures := 3; failures < 40; failures++ {
		want = append(want, min(2*want[len(want)-1], userfacing.MaxRetryDelay))
	}
	for i, w := range want {
		if got := limiter.When(item); got != w {
			t.Fatalf("delay after %d failures = %v, want %v", i, got, w)
		}
	}
	if got := limiter.When(other); got != firstDelay {
		t.Errorf("another item's first delay = %v, want %v: backoff is per item", got, firstDelay)
	}
	limiter.Forget(item)
	if got := limiter.When(item); got != firstDelay {
		t.Errorf("delay after a success = %v, want %v", got, firstDelay)
	}
}
