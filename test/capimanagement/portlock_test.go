package capimanagement

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A port the in-memory provider needs, held by something this repository
// did not start, fails the start at once and names the port; the lock is
// released with the failure, so the next start goes ahead.
func TestLockPorts_APortHeldElsewhereFailsAtOnceNamingIt(t *testing.T) {
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	// Another test may hold the lock for a whole flow: wait our turn.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	lock, err := lockPortsOf(ctx, port)
	if err == nil {
		lock.unlock()
		t.Fatalf("port %d is held, yet the lock was taken", port)
	}
	if !strings.Contains(err.Error(), strconv.Itoa(port)) {
		t.Errorf("error %q does not name port %d", err, port)
	}
	l.Close()
	lock, err = lockPortsOf(ctx, port)
	if err != nil {
		t.Fatalf("after the port was freed: %v", err)
	}
	lock.unlock()
}
