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
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// PollInterval is how often Eventually runs its check.
const PollInterval = 100 * time.Millisecond

// Eventually runs check until it passes or timeout elapses; then it fails
// the test with what and the reason check last gave.
func Eventually(t testing.TB, timeout time.Duration, what string, check func() (ok bool, why string)) {
	t.Helper()
	if err := Within(timeout, what, check); err != nil {
		t.Fatalf("%v", err)
	}
}

// Within runs check until it passes or timeout elapses, and returns an
// error with what and the reason check last gave if it never passed. It is
// Eventually for goroutines other than the test's, which must not fail the
// test themselves.
func Within(timeout time.Duration, what string, check func() (ok bool, why string)) error {
	return WithinContext(context.Background(), timeout, what, check)
}

// WithinContext is Within that also stops when ctx ends, so that a wait
// inside a clean-up or a step with a deadline of its own never outlives it.
func WithinContext(ctx context.Context, timeout time.Duration, what string, check func() (ok bool, why string)) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		ok, why := check()
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w: %s", what, context.Cause(ctx), why)
		case <-deadline.C:
			return fmt.Errorf("%s: not within %s: %s", what, timeout, why)
		case <-time.After(PollInterval):
		}
	}
}

// Consistently runs check for the whole of d, once more when d is over,
// and fails the test with what and check's reason as soon as it does not
// pass: for what must stay true while something runs, such as a bound on
// how often it happens.
func Consistently(t testing.TB, d time.Duration, what string, check func() (ok bool, why string)) {
	t.Helper()
	start := time.Now()
	deadline := start.Add(d)
	for {
		if ok, why := check(); !ok {
			t.Fatalf("%s: broken after %s: %s", what, time.Since(start).Round(time.Millisecond), why)
		}
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		time.Sleep(min(PollInterval, left))
	}
}

// Buffer is a bytes.Buffer safe for one writer and concurrent readers.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Every calls fn every period, in a goroutine, until stop is called or ctx
// ends; stop returns once fn no longer runs.
func Every(ctx context.Context, period time.Duration, fn func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ticker := time.NewTicker(period)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
				fn(ctx)
			}
		}
	}()
	return func() { cancel(); <-done }
}
