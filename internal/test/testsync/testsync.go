package testsync

import (
	"bytes"
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
	deadline := time.Now().Add(timeout)
	for {
		ok, why := check()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %s", what, timeout, why)
		}
		time.Sleep(PollInterval)
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
