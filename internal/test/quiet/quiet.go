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

package quiet

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Options are one caller's window and deadline.
type Options struct {
	// Quiet is how long the value must stay the same once read reports
	// ready; zero returns at the first ready reading.
	Quiet time.Duration
	// Timeout bounds the whole wait.
	Timeout time.Duration
	// Interval is the pause between two readings.
	Interval time.Duration
}

// ErrTimeout is what Wait returns, wrapped, when Timeout passed first.
var ErrTimeout = errors.New("still changing, or not ready")

// Wait calls read every o.Interval until read reports ready and the value
// it returns has not changed for o.Quiet, as same compares them. The first
// reading counts as a change, and a reading that is not ready still moves
// the window: whoever counts work keeps counting while a condition is
// pending. Wait returns the last value and when it last changed; an error
// from read, ctx's end or ErrTimeout stops it at once, with the values so
// far.
func Wait[V any](ctx context.Context, o Options, same func(a, b V) bool, read func() (value V, ready bool, err error)) (last V, changed time.Time, err error) {
	deadline := time.Now().Add(o.Timeout)
	for first := true; ; first = false {
		v, ready, err := read()
		if err != nil {
			return last, changed, err
		}
		if first || !same(v, last) {
			changed = time.Now()
		}
		last = v
		if ready && time.Since(changed) >= o.Quiet {
			return last, changed, nil
		}
		if time.Now().After(deadline) {
			return last, changed, fmt.Errorf("%w, after %s", ErrTimeout, o.Timeout)
		}
		select {
		case <-ctx.Done():
			return last, changed, ctx.Err()
		case <-time.After(o.Interval):
		}
	}
}

// Equal is same for values Go compares with ==.
func Equal[V comparable](a, b V) bool { return a == b }
