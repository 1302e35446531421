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
	"testing"
	"testing/synctest"
	"time"
)

var errRead = errors.New("read failed")

func TestWait(t *testing.T) {
	const interval = 100 * time.Millisecond
	tests := []struct {
		name string
		o    Options
		// read gives reading n (from 0).
		read        func(n int) (int, bool, error)
		wantErr     error
		wantReads   int
		wantLast    int
		wantChanged time.Duration
		wantElapsed time.Duration
	}{
		{
			name: "returns once the value has stayed the same for Quiet",
			o:    Options{Quiet: 250 * time.Millisecond, Timeout: time.Minute, Interval: interval},
			read: func(n int) (int, bool, error) { return min(n, 2), true, nil },
			// The value last moves at reading 2 (200 ms); 500 ms is the
			// first reading 250 ms after that.
			wantReads: 6, wantLast: 2, wantChanged: 200 * time.Millisecond, wantElapsed: 500 * time.Millisecond,
		},
		{
			name:      "zero Quiet returns at the first ready reading",
			o:         Options{Timeout: time.Minute, Interval: interval},
			read:      func(n int) (int, bool, error) { return n, n >= 3, nil },
			wantReads: 4, wantLast: 3, wantChanged: 300 * time.Millisecond, wantElapsed: 300 * time.Millisecond,
		},
		{
			name: "a reading that is not ready does not restart the window",
			o:    Options{Quiet: 250 * time.Millisecond, Timeout: time.Minute, Interval: interval},
			read: func(n int) (int, bool, error) { return 7, n >= 4, nil },
			// Quiet since the first reading; ready only at 400 ms.
			wantReads: 5, wantLast: 7, wantChanged: 0, wantElapsed: 400 * time.Millisecond,
		},
		{
			name:    "a value that keeps changing runs into the timeout",
			o:       Options{Quiet: 250 * time.Millisecond, Timeout: time.Second, Interval: interval},
			read:    func(n int) (int, bool, error) { return n, true, nil },
			wantErr: ErrTimeout,
			// The reading at 1 s is not past the deadline; the next one is.
			wantReads: 12, wantLast: 11, wantChanged: 1100 * time.Millisecond, wantElapsed: 1100 * time.Millisecond,
		},
		{
			name: "an error from read stops at once with the last good value",
			o:    Options{Quiet: 250 * time.Millisecond, Timeout: time.Minute, Interval: interval},
			read: func(n int) (int, bool, error) {
				if n == 2 {
					return 0, false, errRead
				}
				return n + 10, true, nil
			},
			wantErr:   errRead,
			wantReads: 3, wantLast: 11, wantChanged: 100 * time.Millisecond, wantElapsed: 200 * time.Millisecond,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				reads := 0
				last, changed, err := Wait(context.Background(), tt.o, Equal[int], func() (int, bool, error) {
					reads++
					return tt.read(reads - 1)
				})
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("err = %v, want %v", err, tt.wantErr)
				}
				if reads != tt.wantReads {
					t.Errorf("read %d times, want %d", reads, tt.wantReads)
				}
				if last != tt.wantLast {
					t.Errorf("last = %d, want %d", last, tt.wantLast)
				}
				if got := changed.Sub(start); got != tt.wantChanged {
					t.Errorf("changed at %s, want %s", got, tt.wantChanged)
				}
				if got := time.Since(start); got != tt.wantElapsed {
					t.Errorf("returned after %s, want %s", got, tt.wantElapsed)
				}
			})
		})
	}
}

func TestWait_EndsWithTheContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 350*time.Millisecond)
		defer cancel()
		n := 0
		last, _, err := Wait(ctx, Options{Timeout: time.Minute, Interval: 100 * time.Millisecond}, Equal[int], func() (int, bool, error) {
			n++
			return n, false, nil
		})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want the context's", err)
		}
		if last != 4 {
			t.Errorf("last = %d, want the reading at 300 ms, 4", last)
		}
	})
}
