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

package variablescache

import (
	"context"
	"errors"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// nobody asks on behalf of no ClusterClass: the answers it gets are in
// nobody's use, so they expire and are swept like any unused answer.
var nobody types.NamespacedName

func TestGetFor_ConcurrentCallersShareOneCall(t *testing.T) {
	// In a bubble, synctest.Wait returns only once every caller is durably
	// blocked: the one that called, on release, and every other one inside
	// its flight (singleflight's wait group). None can have come late and
	// found the answer stored, so exactly callers-1 of them share.
	synctest.Test(t, func(t *testing.T) {
		c := New[string](Options{})
		var calls atomic.Int64
		release := make(chan struct{})
		call := func(context.Context) (string, error) {
			calls.Add(1)
			<-release
			return "answer", nil
		}
		const callers = 200
		var mu sync.Mutex
		outcomes := map[Outcome]int{}
		var wg sync.WaitGroup
		for range callers {
			wg.Go(func() {
				v, outcome, err := c.GetFor(context.Background(), nobody, "vars.ext", "fp1", map[string]string{"a": "1", "b": "2"}, call)
				if err != nil || v != "answer" {
					t.Errorf("a caller got %q, %v", v, err)
				}
				mu.Lock()
				defer mu.Unlock()
				outcomes[outcome]++
			})
		}
		synctest.Wait()
		if got := calls.Load(); got != 1 {
			t.Errorf("%d calls in flight for %d concurrent callers, want 1", got, callers)
		}
		close(release)
		wg.Wait()
		if want := map[Outcome]int{Called: 1, Shared: callers - 1}; !maps.Equal(outcomes, want) {
			t.Errorf("outcomes %v, want %v: one caller calls, every other shares its flight", outcomes, want)
		}
		// Later callers with the same settings in another order hit the cache.
		if _, outcome, _ := c.GetFor(context.Background(), nobody, "vars.ext", "fp1", map[string]string{"b": "2", "a": "1"}, call); outcome != Hit {
			t.Errorf("outcome %s, want hit", outcome)
		}
	})
}

func TestGetFor_KeyIsHandlerFingerprintAndSettings(t *testing.T) {
	c := New[int](Options{})
	var calls atomic.Int64
	call := func(context.Context) (int, error) { return int(calls.Add(1)), nil }
	get := func(handler, fp string, settings map[string]string) Outcome {
		_, outcome, err := c.GetFor(context.Background(), nobody, handler, fp, settings, call)
		if err != nil {
			t.Fatal(err)
		}
		return outcome
	}
	steps := []struct {
		name        string
		handler, fp string
		settings    map[string]string
		want        Outcome
	}{
		{"first", "vars.ext", "fp1", nil, Called},
		{"same, empty settings equal nil", "vars.ext", "fp1", map[string]string{}, Hit},
		{"other settings", "vars.ext", "fp1", map[string]string{"size": "l"}, Called},
		{"other handler", "vars.other", "fp1", nil, Called},
		{"new fingerprint", "vars.ext", "fp2", nil, Called},
		{"old fingerprint entries are gone", "vars.ext", "fp2", map[string]string{"size": "l"}, Called},
	}
	for _, s := range steps {
		if got := get(s.handler, s.fp, s.settings); got != s.want {
			t.Errorf("%s: outcome %s, want %s", s.name, got, s.want)
		}
	}
	if c.Len() != 3 {
		t.Errorf("Len = %d, want 3 (two for vars.ext under fp2, one for vars.other)", c.Len())
	}
	c.Forget("vars.ext")
	if c.Len() != 1 {
		t.Errorf("Len after Forget = %d, want 1", c.Len())
	}
}

func TestGetFor_AFailureAnswersTheSameKeyUntilItsBackoffThenDoubles(t *testing.T) {
	c := New[int](Options{FailureBackoff: time.Second, MaxFailureBackoff: 3 * time.Second, MaxAge: 10 * time.Second})
	now := time.Now()
	c.now = func() time.Time { return now }
	var calls atomic.Int64
	fail := true
	call := func(context.Context) (int, error) {
		calls.Add(1)
		if fail {
			return 0, errors.New("boom")
		}
		return 7, nil
	}
	get := func(handler string) (int, Outcome, error) {
		return c.GetFor(context.Background(), nobody, handler, "fp", nil, call)
	}
	steps := []struct {
		name      string
		advance   time.Duration
		heal      bool
		handler   string
		want      Outcome
		wantErr   bool
		wantCalls int64
	}{
		{name: "first call fails", handler: "h", want: Called, wantErr: true, wantCalls: 1},
		{name: "within the backoff the failure is shared", advance: 900 * time.Millisecond, handler: "h", want: FailureShared, wantErr: true, wantCalls: 1},
		{name: "another handler is not affected", handler: "other", want: Called, wantErr: true, wantCalls: 2},
		{name: "after the backoff it calls again", advance: 200 * time.Millisecond, handler: "h", want: Called, wantErr: true, wantCalls: 3},
		{name: "the second failure doubles the backoff", advance: 1500 * time.Millisecond, handler: "h", want: FailureShared, wantErr: true, wantCalls: 3},
		{name: "after the doubled backoff it calls again", advance: 600 * time.Millisecond, handler: "h", want: Called, wantErr: true, wantCalls: 4},
		{name: "the backoff is capped", advance: 3100 * time.Millisecond, handler: "h", want: Called, wantErr: true, wantCalls: 5},
		{name: "a healed extension answers after the backoff", advance: 3100 * time.Millisecond, heal: true, handler: "h", want: Called, wantCalls: 6},
		{name: "and the answer is cached", handler: "h", want: Hit, wantCalls: 6},
	}
	for _, step := range steps {
		now = now.Add(step.advance)
		if step.heal {
			fail = false
		}
		v, outcome, err := get(step.handler)
		if outcome != step.want || (err != nil) != step.wantErr || calls.Load() != step.wantCalls {
			t.Fatalf("%s: outcome %s, err %v, %d calls; want %s, error %v, %d calls", step.name, outcome, err, calls.Load(), step.want, step.wantErr, step.wantCalls)
		}
		if err == nil && v != 7 {
			t.Fatalf("%s: value %d", step.name, v)
		}
	}
	// The success cleared the streak: once the answer expires, the next
	// failure backs off from the start (1 s), not from the capped 3 s.
	fail = true
	now = now.Add(11 * time.Second)
	if _, outcome, err := get("h"); outcome != Called || err == nil {
		t.Fatalf("after expiry: outcome %s, err %v", outcome, err)
	}
	now = now.Add(1100 * time.Millisecond)
	if _, outcome, _ := get("h"); outcome != Called {
		t.Fatalf("a fresh streak should back off 1s only, got %s", outcome)
	}
}

func TestForget_DropsAHandlersFailures(t *testing.T) {
	c := New[int](Options{})
	boom := func(context.Context) (int, error) { return 0, errors.New("boom") }
	_, _, _ = c.GetFor(context.Background(), nobody, "h", "fp", nil, boom)
	if _, outcome, _ := c.GetFor(context.Background(), nobody, "h", "fp", nil, boom); outcome != FailureShared {
		t.Fatalf("outcome %s before Forget, want %s", outcome, FailureShared)
	}
	c.Forget("h")
	if _, outcome, _ := c.GetFor(context.Background(), nobody, "h", "fp", nil, boom); outcome != Called {
		t.Fatalf("outcome %s after Forget, want %s: a re-registered handler must be asked at once", outcome, Called)
	}
}

func TestGetFor_MaxAgeExpiresEntries(t *testing.T) {
	c := New[int](Options{MaxAge: time.Minute})
	now := time.Now()
	c.now = func() time.Time { return now }
	call := func(context.Context) (int, error) { return 1, nil }
	_, _, _ = c.GetFor(context.Background(), nobody, "h", "fp", nil, call)
	now = now.Add(30 * time.Second)
	if _, outcome, _ := c.GetFor(context.Background(), nobody, "h", "fp", nil, call); outcome != Hit {
		t.Errorf("within max age: %s", outcome)
	}
	now = now.Add(time.Minute)
	if _, outcome, _ := c.GetFor(context.Background(), nobody, "h", "fp", nil, call); outcome != Called {
		t.Errorf("after max age: %s", outcome)
	}
}

func TestGetFor_SharedCallSurvivesTheFirstCallersCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New[int](Options{})
		started := make(chan struct{})
		release := make(chan struct{})
		call := func(ctx context.Context) (int, error) {
			close(started)
			<-release
			return 5, ctx.Err()
		}
		first, cancel := context.WithCancel(context.Background())
		go func() { _, _, _ = c.GetFor(first, nobody, "h", "fp", nil, call) }()
		<-started
		cancel()
		type answer struct {
			v       int
			outcome Outcome
			err     error
		}
		done := make(chan answer, 1)
		go func() {
			v, outcome, err := c.GetFor(context.Background(), nobody, "h", "fp", nil, call)
			done <- answer{v, outcome, err}
		}()
		// The second caller is inside the first's flight before it answers:
		// it shares the call the cancelled caller started.
		synctest.Wait()
		close(release)
		if got := <-done; got != (answer{5, Shared, nil}) {
			t.Fatalf("second caller got %+v, want 5 from the shared call: the first caller's cancellation must not end it", got)
		}
	})
}

// checkInvariants fails the test unless the list of entries, the handler
// maps, the count and the bytes agree, both bounds hold, and no handler
// record is left without entries.
func checkInvariants[V any](t *testing.T, c *Cache[V]) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	listed := 0
	var weight int64
	for e := c.oldest; e != nil; e = e.newer {
		listed++
		weight += e.weight
		h, ok := c.handlers[e.handler]
		if !ok || h.bySettings[e.settingsKey] != e {
			t.Fatalf("listed entry %s %s is not in its handler's map", e.handler, e.settingsKey)
		}
		if e.newer != nil && e.newer.at.Before(e.at) {
			t.Fatalf("entry %s %s is listed before an older one", e.handler, e.settingsKey)
		}
	}
	mapped := 0
	for name, h := range c.handlers {
		if len(h.bySettings) == 0 {
			t.Fatalf("handler %s has a record but no entries", name)
		}
		mapped += len(h.bySettings)
	}
	if listed != c.entries || mapped != c.entries {
		t.Fatalf("%d entries listed, %d mapped, count %d", listed, mapped, c.entries)
	}
	if weight != c.bytes {
		t.Fatalf("entries weigh %d bytes, counted %d", weight, c.bytes)
	}
	if c.entries > c.maxEntries || c.bytes > c.maxBytes {
		t.Fatalf("%d entries of %d bytes, over the bounds %d and %d", c.entries, c.bytes, c.maxEntries, c.maxBytes)
	}
}

func TestCache_BoundsAndDrops(t *testing.T) {
	type step struct {
		advance     time.Duration // moves the clock before the step
		forget      []string      // when set, the step is a Forget
		handler, fp string
		setting     string // value of the one setting "v"
		want        Outcome
		wantLen     int
	}
	get := func(handler, fp, setting string, want Outcome, wantLen int) step {
		return step{handler: handler, fp: fp, setting: setting, want: want, wantLen: wantLen}
	}
	tests := []struct {
		name  string
		opts  Options
		steps []step
	}{
		{
			name: "the oldest go first",
			opts: Options{MaxEntries: 3},
			steps: []step{
				get("h", "fp", "a", Called, 1), get("h", "fp", "b", Called, 2), get("other", "fp", "c", Called, 3),
				get("h", "fp", "d", Called, 3), // evicts a
				get("h", "fp", "d", Hit, 3), get("other", "fp", "c", Hit, 3), get("h", "fp", "b", Hit, 3),
				get("h", "fp", "a", Called, 3), // evicts b
				get("h", "fp", "b", Called, 3), // evicts c
				get("other", "fp", "c", Called, 3),
			},
		},
		{
			// Age is what counts, as for expiry: a hit does not renew.
			name: "a hit does not make an entry younger",
			opts: Options{MaxEntries: 2},
			steps: []step{
				get("h", "fp", "a", Called, 1), get("h", "fp", "b", Called, 2), get("h", "fp", "a", Hit, 2),
				get("h", "fp", "c", Called, 2), // evicts a, the oldest stored
				get("h", "fp", "b", Hit, 2),
			},
		},
		{
			name: "storing sweeps expired entries nobody looks up",
			opts: Options{MaxAge: time.Minute, MaxEntries: 100},
			steps: []step{
				get("h1", "fp", "a", Called, 1), get("h2", "fp", "a", Called, 2),
				{advance: 2 * time.Minute, handler: "h3", fp: "fp", setting: "a", want: Called, wantLen: 1},
				get("h1", "fp", "a", Called, 2),
			},
		},
		{
			name: "only the expired are swept",
			opts: Options{MaxAge: time.Minute, MaxEntries: 100},
			steps: []step{
				get("h", "fp", "a", Called, 1),
				{advance: 50 * time.Second, handler: "h", fp: "fp", setting: "b", want: Called, wantLen: 2},
				{advance: 20 * time.Second, handler: "h", fp: "fp", setting: "c", want: Called, wantLen: 2}, // a is 70s old
				get("h", "fp", "b", Hit, 2),
			},
		},
		{
			name: "forget drops every entry of the handler and nothing else",
			opts: Options{MaxEntries: 10},
			steps: []step{
				get("h1", "fp", "a", Called, 1), get("h1", "fp", "b", Called, 2), get("h2", "fp", "a", Called, 3),
				{forget: []string{"h1", "unknown"}, wantLen: 1},
				get("h2", "fp", "a", Hit, 1), get("h1", "fp", "a", Called, 2),
			},
		},
		{
			name: "a new fingerprint drops the old entries from the count",
			opts: Options{MaxEntries: 10},
			steps: []step{
				get("h", "fp1", "a", Called, 1), get("h", "fp1", "b", Called, 2),
				get("h", "fp2", "a", Called, 1), get("h", "fp2", "b", Called, 2),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New[string](tt.opts)
			now := time.Unix(1_700_000_000, 0)
			c.now = func() time.Time { return now }
			for i, s := range tt.steps {
				now = now.Add(s.advance)
				if s.forget != nil {
					c.Forget(s.forget...)
				} else {
					want := s.handler + "/" + s.fp + "/" + s.setting
					v, outcome, err := c.GetFor(context.Background(), nobody, s.handler, s.fp, map[string]string{"v": s.setting},
						func(context.Context) (string, error) { return want, nil })
					if err != nil || v != want {
						t.Fatalf("step %d: got %q, %v; want %q", i, v, err, want)
					}
					if outcome != s.want {
						t.Errorf("step %d (%s %s %s): outcome %s, want %s", i, s.handler, s.fp, s.setting, outcome, s.want)
					}
				}
				if got := c.Len(); got != s.wantLen {
					t.Errorf("step %d: Len = %d, want %d", i, got, s.wantLen)
				}
				checkInvariants(t, c)
			}
		})
	}
}

func TestCache_BoundHoldsUnderManyDistinctSettings(t *testing.T) {
	const bound = 50
	c := New[int](Options{MaxEntries: bound, MaxAge: time.Hour})
	now := time.Unix(1_700_000_000, 0)
	c.now = func() time.Time { return now }
	handlers := []string{"a.ext", "b.ext", "c.other", "d.other", "e.third"}
	const stores = 5000
	for i := range stores {
		now = now.Add(time.Second)
		_, outcome, err := c.GetFor(context.Background(), nobody, handlers[i%len(handlers)], "fp", map[string]string{"generation": strconv.Itoa(i)},
			func(context.Context) (int, error) { return i, nil })
		if err != nil || outcome != Called {
			t.Fatalf("store %d: outcome %s, %v", i, outcome, err)
		}
		if n := c.Len(); n > bound {
			t.Fatalf("after %d stores Len = %d, over the bound %d", i+1, n, bound)
		}
	}
	if n := c.Len(); n != bound {
		t.Errorf("Len = %d, want the bound %d", n, bound)
	}
	checkInvariants(t, c)
	// The newest answers are the ones kept.
	for i := stores - bound; i < stores; i++ {
		v, outcome, _ := c.GetFor(context.Background(), nobody, handlers[i%len(handlers)], "fp", map[string]string{"generation": strconv.Itoa(i)},
			func(context.Context) (int, error) { return -1, nil })
		if outcome != Hit || v != i {
			t.Fatalf("store %d, among the newest %d: outcome %s, value %d", i, bound, outcome, v)
		}
	}
}

func TestNew_ZeroMaxEntriesMeansTheDefault(t *testing.T) {
	c := New[int](Options{})
	for i := range userfacing.DefaultVariablesCacheMaxEntries + 10 {
		_, _, _ = c.GetFor(context.Background(), nobody, "h", "fp", map[string]string{"i": strconv.Itoa(i)}, func(context.Context) (int, error) { return i, nil })
	}
	if n := c.Len(); n != userfacing.DefaultVariablesCacheMaxEntries {
		t.Errorf("Len = %d, want userfacing.DefaultVariablesCacheMaxEntries (%d)", n, userfacing.DefaultVariablesCacheMaxEntries)
	}
}
