package localcluster

import (
	"net"
	"strconv"
	"testing"
)

// A port from the kernel's ephemeral range can be taken by an outgoing
// connection before the process it was picked for binds it; FreePort's never
// can, and it never hands out one port twice.
func TestFreePort_BelowTheEphemeralRangeFreeAndNeverTwice(t *testing.T) {
	limit := ephemeralPortsStart()
	seen := map[int]bool{}
	for range 100 {
		port, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if port < firstFreePort || port >= limit {
			t.Fatalf("FreePort() = %d, want a port in [%d, %d), below the ephemeral range", port, firstFreePort, limit)
		}
		if seen[port] {
			t.Fatalf("FreePort() returned %d twice", port)
		}
		seen[port] = true
		l, err := net.Listen("tcp", ":"+strconv.Itoa(port))
		if err != nil {
			t.Fatalf("port %d from FreePort cannot be bound on every address: %v", port, err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
