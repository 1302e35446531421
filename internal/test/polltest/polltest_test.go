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

package polltest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestEventually_ReturnsOnceTheCheckPasses(t *testing.T) {
	var calls atomic.Int32
	Eventually(t, 5*time.Second, "third call", func() (bool, string) {
		return calls.Add(1) >= 3, "not yet"
	})
	if calls.Load() != 3 {
		t.Errorf("check ran %d times, want 3", calls.Load())
	}
}

func TestEventually_FailsWithTheLastReasonAfterTheTimeout(t *testing.T) {
	rec := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Eventually(rec, 250*time.Millisecond, "never", func() (bool, string) { return false, "still false" })
	}()
	<-done
	if rec.failure != "never: not within 250ms: still false" {
		t.Errorf("failure = %q", rec.failure)
	}
}

func TestWithin_ReturnsNilOnceTheCheckPassesAndTheLastReasonAfterTheTimeout(t *testing.T) {
	var calls atomic.Int32
	if err := Within(5*time.Second, "second call", func() (bool, string) { return calls.Add(1) >= 2, "not yet" }); err != nil {
		t.Errorf("Within = %v after %d calls", err, calls.Load())
	}
	err := Within(250*time.Millisecond, "never", func() (bool, string) { return false, "still false" })
	if err == nil || err.Error() != "never: not within 250ms: still false" {
		t.Errorf("Within = %v", err)
	}
}

func TestWithinContext_StopsWhenTheContextEndsWithItsCauseAndTheLastReason(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := WithinContext(ctx, time.Hour, "never", func() (bool, string) { return false, "still false" })
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.HasSuffix(err.Error(), ": still false") {
		t.Errorf("WithinContext = %v, want the context's deadline and the last reason", err)
	}
	if took := time.Since(start); took > time.Minute {
		t.Errorf("WithinContext returned %s after its context ended", took)
	}
}

func TestConsistently_ChecksUntilTheEndAndFailsAtTheFirstBreak(t *testing.T) {
	var calls atomic.Int32
	start := time.Now()
	Consistently(t, 250*time.Millisecond, "holds", func() (bool, string) { calls.Add(1); return true, "" })
	if took := time.Since(start); took < 250*time.Millisecond {
		t.Errorf("Consistently returned after %s, before its 250ms were over", took)
	}
	// Once at the start, every PollInterval, once more at the end.
	if calls.Load() < 2 {
		t.Errorf("check ran %d times, want at least at the start and at the end", calls.Load())
	}

	rec := &recorder{TB: t}
	calls.Store(0)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Consistently(rec, time.Minute, "stays low", func() (bool, string) {
			n := calls.Add(1)
			return n < 2, fmt.Sprintf("%d calls", n)
		})
	}()
	<-done
	if !strings.HasPrefix(rec.failure, "stays low: broken after ") || !strings.HasSuffix(rec.failure, ": 2 calls") {
		t.Errorf("failure = %q", rec.failure)
	}
	if calls.Load() != 2 {
		t.Errorf("check ran %d times after it broke, want it to stop at the break", calls.Load())
	}
}

// recorder captures Fatalf instead of ending the test.
type recorder struct {
	testing.TB
	failure string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failure = fmt.Sprintf(format, args...)
	// Fatalf must not return; end this goroutine as testing would.
	runtime.Goexit()
}

// Every calls its function each period until stopped, and never after
// stop returns.
func TestEvery_CallsEachPeriodUntilStopped(t *testing.T) {
	var calls atomic.Int64
	stop := Every(context.Background(), 5*time.Millisecond, func(context.Context) { calls.Add(1) })
	Eventually(t, 5*time.Second, "three calls", func() (bool, string) {
		return calls.Load() >= 3, fmt.Sprintf("%d calls", calls.Load())
	})
	stop()
	after := calls.Load()
	Consistently(t, 50*time.Millisecond, "no call after stop", func() (bool, string) {
		return calls.Load() == after, fmt.Sprintf("%d calls, %d at stop", calls.Load(), after)
	})
}
