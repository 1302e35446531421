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

package drill

import (
	"testing"
	"time"
)

func TestBackoffBound_GrowsWithTheLogarithmOfTime(t *testing.T) {
	w := Window{Reconciles: 150, ReconcileErrors: 100, Enqueued: 30}
	// 100 ClusterClasses and 50 successes: 150 runs of failures, each at
	// most floor(log2(40s / 5ms)) + 2 = 14 attempts, plus the 30 enqueues.
	if got, want := backoffBound(100, w, 40*time.Second), int64(30+150*14); got != want {
		t.Errorf("bound over 40s = %d, want %d", got, want)
	}
	// Sixteen times as long adds four doublings per run, not 16 times the
	// retries a loop without backoff would make.
	if got, want := backoffBound(100, w, 640*time.Second), int64(30+150*18); got != want {
		t.Errorf("bound over 640s = %d, want %d", got, want)
	}
}
