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

package capimanagement

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"slices"
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

// CheckPorts never waits: a lock another start holds fails at once, and
// so does a held port, naming it.
func TestCheckPorts_FailsAtOnceOnAHeldLockOrPortNamingIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	held, err := lockPortsOf(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPortsOf(path); !errors.Is(err, ErrLocked) {
		t.Errorf("with the lock held: %v, want ErrLocked", err)
	}
	held.unlock()

	l, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := checkPortsOf(path, port); err == nil || !strings.Contains(err.Error(), strconv.Itoa(port)) {
		t.Errorf("with port %d held: %v, want a failure naming it", port, err)
	}
	l.Close()
	if err := checkPortsOf(path, port); err != nil {
		t.Errorf("once port %d was freed: %v", port, err)
	}
}

func TestInMemoryPorts_AreTheDebugPortAndOnePerWorkloadCluster(t *testing.T) {
	for _, tc := range []struct {
		clusters int
		want     []int
	}{
		{0, []int{19000, 20000}},
		{1, []int{19000, 20000}},
		{2, []int{19000, 20000, 20001}},
	} {
		if got := InMemoryPorts(tc.clusters); !slices.Equal(got, tc.want) {
			t.Errorf("InMemoryPorts(%d) = %v, want %v", tc.clusters, got, tc.want)
		}
	}
}
