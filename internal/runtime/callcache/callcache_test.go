package callcache

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestGet_ConcurrentCallersShareOneCall(t *testing.T) {
	c := New[string](0)
	var calls atomic.Int64
	release := make(chan struct{})
	call := func(context.Context) (string, error) {
		calls.Add(1)
		<-release
		return "answer", nil
	}
	const callers = 200
	var wg sync.WaitGroup
	results := make(chan string, callers)
	var outcomes sync.Map
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, outcome, err := c.Get(context.Background(), "vars.ext", "fp1", map[string]string{"a": "1", "b": "2"}, call)
			if err != nil {
				t.Error(err)
			}
			n, _ := outcomes.LoadOrStore(outcome, new(atomic.Int64))
			n.(*atomic.Int64).Add(1)
			results <- v
		}()
	}
	// Let the callers pile up on the first call, then answer it.
	deadline := time.Now().Add(5 * time.Second)
	for calls.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	close(results)
	for v := range results {
		if v != "answer" {
			t.Fatalf("a caller got %q", v)
		}
	}
	if got := calls.Load(); got != 1 {
		t.Fatalf("%d calls for %d concurrent callers, want 1", got, callers)
	}
	count := func(o Outcome) int64 {
		n, ok := outcomes.Load(o)
		if !ok {
			return 0
		}
		return n.(*atomic.Int64).Load()
	}
	if count(Called) != 1 || count(Called)+count(Shared)+count(Hit) != callers {
		t.Errorf("outcomes: called %d, shared %d, hit %d; want exactly one caller to report the call", count(Called), count(Shared), count(Hit))
	}
	// Later callers with the same settings in another order hit the cache.
	if _, outcome, _ := c.Get(context.Background(), "vars.ext", "fp1", map[string]string{"b": "2", "a": "1"}, call); outcome != Hit {
		t.Errorf("outcome %s, want hit", outcome)
	}
}

func TestGet_KeyIsHandlerFingerprintAndSettings(t *testing.T) {
	c := New[int](0)
	var calls atomic.Int64
	call := func(context.Context) (int, error) { return int(calls.Add(1)), nil }
	get := func(handler, fp string, settings map[string]string) Outcome {
		_, outcome, err := c.Get(context.Background(), handler, fp, settings, call)
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

func TestGet_FailuresAreNotCached(t *testing.T) {
	c := New[int](0)
	var calls atomic.Int64
	fail := true
	call := func(context.Context) (int, error) {
		calls.Add(1)
		if fail {
			return 0, errors.New("boom")
		}
		return 7, nil
	}
	if _, _, err := c.Get(context.Background(), "h", "fp", nil, call); err == nil {
		t.Fatal("want the error")
	}
	fail = false
	v, outcome, err := c.Get(context.Background(), "h", "fp", nil, call)
	if err != nil || v != 7 || outcome != Called || calls.Load() != 2 {
		t.Fatalf("v=%d outcome=%s err=%v calls=%d", v, outcome, err, calls.Load())
	}
}

func TestGet_MaxAgeExpiresEntries(t *testing.T) {
	c := New[int](time.Minute)
	now := time.Now()
	c.now = func() time.Time { return now }
	call := func(context.Context) (int, error) { return 1, nil }
	c.Get(context.Background(), "h", "fp", nil, call)
	now = now.Add(30 * time.Second)
	if _, outcome, _ := c.Get(context.Background(), "h", "fp", nil, call); outcome != Hit {
		t.Errorf("within max age: %s", outcome)
	}
	now = now.Add(time.Minute)
	if _, outcome, _ := c.Get(context.Background(), "h", "fp", nil, call); outcome != Called {
		t.Errorf("after max age: %s", outcome)
	}
}

func TestGet_SharedCallSurvivesTheFirstCallersCancellation(t *testing.T) {
	c := New[int](0)
	started := make(chan struct{})
	release := make(chan struct{})
	call := func(ctx context.Context) (int, error) {
		close(started)
		<-release
		return 5, ctx.Err()
	}
	first, cancel := context.WithCancel(context.Background())
	go func() { _, _, _ = c.Get(first, "h", "fp", nil, call) }()
	<-started
	cancel()
	done := make(chan error, 1)
	go func() {
		_, _, err := c.Get(context.Background(), "h", "fp", nil, call)
		done <- err
	}()
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("second caller failed because the first was cancelled: %v", err)
	}
}
