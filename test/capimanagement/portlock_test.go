package capimanagement

import (
	"context"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A port the in-memory provider needs, held by something this repository
// did not start, fails the start at once and names the port; the lock is
// released with the failure, so the next start goes ahead.
func TestLockPorts_APortHeldElsewhereFailsAtOnceNamingIt(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// A lock of its own: the shared one may be held for a whole flow.
	path := filepath.Join(t.TempDir(), "lock")
	lock, err := lockPortsOf(ctx, path, port)
	if err == nil {
		lock.unlock()
		t.Fatalf("port %d is held, yet the lock was taken", port)
	}
	if !strings.Contains(err.Error(), strconv.Itoa(port)) {
		t.Errorf("error %q does not name port %d", err, port)
	}
	l.Close()
	lock, err = lockPortsOf(ctx, path, port)
	if err != nil {
		t.Fatalf("after the port was freed: %v", err)
	}
	lock.unlock()
}

// The lock is exclusive: a second holder waits until the first lets go,
// or its context ends.
func TestLockPorts_ASecondHolderWaitsForTheFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	first, err := lockPortsOf(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	if second, err := lockPortsOf(ctx, path); err == nil {
		second.unlock()
		t.Fatal("a second holder took the lock while the first held it")
	}
	first.unlock()
	second, err := lockPortsOf(context.Background(), path)
	if err != nil {
		t.Fatalf("after the first let go: %v", err)
	}
	second.unlock()
}
