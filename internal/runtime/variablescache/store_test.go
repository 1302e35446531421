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
	"strconv"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// byLength weighs a string answer by its length, so that tests read weights
// off the answers.
func byLength(v any) int64 { return int64(len(v.(string))) }

func TestCache_BoundInBytesEvictsTheOldestUntilBothBoundsHold(t *testing.T) {
	type step struct {
		handler, setting string
		answer           string // its length is its weight
		want             Outcome
		wantLen          int
		wantBytes        int64
	}
	tests := []struct {
		name  string
		opts  Options
		steps []step
	}{
		{
			name: "the oldest go first until the bytes fit",
			opts: Options{MaxBytes: 10, Weigh: byLength},
			steps: []step{
				{"h", "a", "aaaa", Called, 1, 4}, {"h", "b", "bbbb", Called, 2, 8},
				{"other", "c", "cccc", Called, 2, 8}, // evicts a
				{"h", "b", "", Hit, 2, 8}, {"other", "c", "", Hit, 2, 8},
				{"h", "d", "ddddddddd", Called, 1, 9}, // evicts b and c
				{"h", "b", "bbbb", Called, 1, 4},      // evicts d: 13 bytes would not fit
			},
		},
		{
			name: "an answer of exactly the bound is kept, alone",
			opts: Options{MaxBytes: 10, Weigh: byLength},
			steps: []step{
				{"h", "a", "aa", Called, 1, 2}, {"h", "b", "bb", Called, 2, 4},
				{"h", "c", "cccccccccc", Called, 1, 10},
				{"h", "c", "", Hit, 1, 10},
			},
		},
		{
			name: "the entry bound holds for light answers, the byte bound for heavy ones",
			opts: Options{MaxEntries: 3, MaxBytes: 10, Weigh: byLength},
			steps: []step{
				{"h", "a", "a", Called, 1, 1}, {"h", "b", "b", Called, 2, 2}, {"h", "c", "c", Called, 3, 3},
				{"h", "d", "d", Called, 3, 3}, // evicts a by number
				{"h", "e", "eeeeeeee", Called, 3, 10},
				{"h", "f", "ff", Called, 2, 10}, // evicts b and c by bytes, though the number would allow one more
				{"h", "e", "", Hit, 2, 10}, {"h", "f", "", Hit, 2, 10},
			},
		},
		{
			// Callers still get it; the cache keeps what it held.
			name: "an answer heavier than the bound alone is not stored",
			opts: Options{MaxBytes: 10, Weigh: byLength},
			steps: []step{
				{"h", "a", "aaaa", Called, 1, 4},
				{"h", "big", "bbbbbbbbbbb", Called, 1, 4},
				{"h", "big", "bbbbbbbbbbb", Called, 1, 4}, // asked again: nothing was stored
				{"h", "a", "", Hit, 1, 4},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type heard struct {
				handler string
				weight  int64
			}
			var oversize []heard
			tt.opts.Oversize = func(handler string, weight int64) { oversize = append(oversize, heard{handler, weight}) }
			c := New[string](tt.opts)
			var wantOversize []heard
			for i, s := range tt.steps {
				v, outcome, err := c.GetFor(context.Background(), nobody, s.handler, "fp", map[string]string{"v": s.setting},
					func(context.Context) (string, error) { return s.answer, nil })
				if err != nil || outcome != s.want {
					t.Fatalf("step %d (%s %s): outcome %s, %v; want %s", i, s.handler, s.setting, outcome, err, s.want)
				}
				if outcome == Called && v != s.answer {
					t.Fatalf("step %d: got %q, want %q", i, v, s.answer)
				}
				if int64(len(s.answer)) > tt.opts.MaxBytes {
					wantOversize = append(wantOversize, heard{s.handler, int64(len(s.answer))})
				}
				if n, b := c.Len(), c.Bytes(); n != s.wantLen || b != s.wantBytes {
					t.Errorf("step %d (%s %s): Len %d, Bytes %d; want %d, %d", i, s.handler, s.setting, n, b, s.wantLen, s.wantBytes)
				}
				checkInvariants(t, c)
			}
			if len(oversize) != len(wantOversize) {
				t.Fatalf("Oversize heard %v, want %v", oversize, wantOversize)
			}
			for i := range oversize {
				if oversize[i] != wantOversize[i] {
					t.Errorf("Oversize heard %v, want %v", oversize, wantOversize)
				}
			}
		})
	}
}

// A refresh that finds an answer grown past the bound drops the old one,
// which no longer says what the extension says, and tells its users; their
// next call asks the extension.
func TestRefresh_AnAnswerGrownPastTheBoundIsDroppedAndItsUsersTold(t *testing.T) {
	oversize := 0
	c := newClocked(Options{
		MaxAge: time.Minute, MaxBytes: 100, Equal: intsEqual,
		// An answer weighs what it says.
		Weigh:    func(v any) int64 { return int64(v.(int)) },
		Oversize: func(string, int64) { oversize++ },
	})
	ctx := context.Background()
	ext := &extension{}
	ext.answer.Store(60)
	_, _, _ = c.GetFor(ctx, userA, "h", "fp", nil, ext.call)
	ext.answer.Store(101)
	c.now = c.now.Add(2 * time.Minute)
	var outcomes []RefreshOutcome
	c.RefreshEach(ctx, func(o RefreshOutcome) { outcomes = append(outcomes, o) })
	if len(outcomes) != 1 || outcomes[0] != RefreshChanged {
		t.Errorf("refresh outcomes %v, want [changed]", outcomes)
	}
	if len(c.told) != 1 || len(c.told[0]) != 1 || c.told[0][0] != userA {
		t.Errorf("told %v, want [[%s]]", c.told, userA)
	}
	if n, b := c.Len(), c.Bytes(); n != 0 || b != 0 || oversize != 1 {
		t.Errorf("Len %d, Bytes %d, oversize heard %d; want 0, 0, 1", n, b, oversize)
	}
	checkInvariants(t, c.Cache)
	v, outcome, err := c.GetFor(ctx, userA, "h", "fp", nil, ext.call)
	if v != 101 || outcome != Called || err != nil {
		t.Errorf("after the refresh: %d, %s, %v; want the new answer, called", v, outcome, err)
	}
}

// Evicted by bytes, an answer in use is no longer refreshed (its user asks
// again when it next reconciles), and the count and bytes stay with what
// is stored.
func TestRefresh_SkipsAnswersEvictedByBytes(t *testing.T) {
	c := newClocked(Options{MaxAge: time.Minute, MaxBytes: 100, Equal: intsEqual, Weigh: func(v any) int64 { return int64(v.(int)) }})
	ctx := context.Background()
	first, second := &extension{}, &extension{}
	first.answer.Store(60)
	second.answer.Store(50)
	_, _, _ = c.GetFor(ctx, userA, "h", "fp", map[string]string{"n": "1"}, first.call)
	_, _, _ = c.GetFor(ctx, userB, "h", "fp", map[string]string{"n": "2"}, second.call) // evicts the first
	c.now = c.now.Add(2 * time.Minute)
	c.RefreshEach(ctx, func(RefreshOutcome) {})
	if first.calls.Load() != 1 || second.calls.Load() != 2 {
		t.Errorf("calls %d and %d, want 1 (evicted, not refreshed) and 2", first.calls.Load(), second.calls.Load())
	}
	if n, b := c.Len(), c.Bytes(); n != 1 || b != 50 {
		t.Errorf("Len %d, Bytes %d; want 1, 50", n, b)
	}
	checkInvariants(t, c.Cache)
}

func TestNew_ZeroMaxBytesMeansTheDefaultAndRetainedWeighs(t *testing.T) {
	c := New[int](Options{Weigh: func(any) int64 { return userfacing.DefaultVariablesCacheMaxBytes/3 + 1 }})
	for i := range 5 {
		_, _, _ = c.GetFor(context.Background(), nobody, "h", "fp", map[string]string{"i": strconv.Itoa(i)}, func(context.Context) (int, error) { return i, nil })
	}
	if n := c.Len(); n != 2 {
		t.Errorf("Len = %d, want 2: three answers of a third of userfacing.DefaultVariablesCacheMaxBytes and a byte do not fit", n)
	}

	// Without Weigh, an answer weighs what Retained says.
	bytes := New[[]byte](Options{MaxBytes: 1 << 20})
	answer := make([]byte, 100<<10)
	_, _, _ = bytes.GetFor(context.Background(), nobody, "h", "fp", nil, func(context.Context) ([]byte, error) { return answer, nil })
	if got, want := bytes.Bytes(), Retained(answer); got != want {
		t.Errorf("Bytes = %d, want Retained's %d", got, want)
	}
	_, _, _ = bytes.GetFor(context.Background(), nobody, "h", "fp", map[string]string{"big": ""}, func(context.Context) ([]byte, error) { return make([]byte, 2<<20), nil })
	if n := bytes.Len(); n != 1 {
		t.Errorf("Len = %d after an answer of twice the bound, want 1: it is not stored", n)
	}
}
