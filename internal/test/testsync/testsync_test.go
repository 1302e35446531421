package testsync

import (
	"fmt"
	"runtime"
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
