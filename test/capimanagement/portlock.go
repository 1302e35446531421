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
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// The in-memory provider serves a debug server on DebugPort and each
// workload cluster's API server on FirstWorkloadPort and up, on every
// interface (only 127.0.0.1 is ever sent traffic). Neither can be moved.
const (
	DebugPort         = 19000
	FirstWorkloadPort = 20000
)

// lockFile is shared by every test and tool of this repository that starts
// the in-memory provider: `go test ./...` runs packages in parallel, and
// two providers would fight over the same ports.
var lockFile = filepath.Join(os.TempDir(), "runtime-sdk-controller-in-memory-provider.lock")

// portLock is held while an in-memory provider runs.
type portLock struct{ file *os.File }

// lockPorts waits for the in-memory provider's lock until ctx ends, then
// fails at once when something else (not started by this repository's
// tests) holds DebugPort or a port of the first workloadClusters workload
// clusters, naming the port.
func lockPorts(ctx context.Context, path string, workloadClusters int) (*portLock, error) {
	return lockPortsOf(ctx, path, InMemoryPorts(workloadClusters)...)
}

// lockPortsOf is lockPorts with the lock at path, for the given ports.
func lockPortsOf(ctx context.Context, path string, ports ...int) (*portLock, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("in-memory provider port lock %s: %w", path, err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("in-memory provider port lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for the in-memory provider port lock %s, held by another test or tool: %w", path, ctx.Err())
		case <-time.After(time.Second):
		}
	}
	for _, port := range ports {
		if err := portFree(port); err != nil {
			_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			f.Close()
			return nil, fmt.Errorf("the in-memory provider needs port %d, which cannot be moved, and something else holds it: %w", port, err)
		}
	}
	return &portLock{file: f}, nil
}

// portFree checks that port can be bound on every interface, as the
// in-memory provider binds it.
func portFree(port int) error {
	l, err := net.Listen("tcp", ":"+strconv.Itoa(port))
	if err != nil {
		return err
	}
	return l.Close()
}

// ErrLocked is CheckPorts' answer while another test or tool of this
// repository runs an in-memory provider; Start would wait for it to end.
var ErrLocked = errors.New("another test or tool of this repository runs an in-memory provider")

// CheckPorts fails at once, naming the port, when something else holds
// DebugPort or one of the first workloadClusters ports from
// FirstWorkloadPort (each workload cluster takes the next one), and with
// ErrLocked while another start of this repository holds them. A launcher
// calls it to say so before Start, which waits for the lock and checks the
// ports again before it starts anything.
func CheckPorts(workloadClusters int) error {
	return checkPortsOf(lockFile, InMemoryPorts(workloadClusters)...)
}

// InMemoryPorts are the ports the in-memory provider takes for that many
// workload clusters: DebugPort, and one from FirstWorkloadPort up each.
func InMemoryPorts(workloadClusters int) []int {
	ports := []int{DebugPort}
	for i := range max(workloadClusters, 1) {
		ports = append(ports, FirstWorkloadPort+i)
	}
	return ports
}

// checkPortsOf is CheckPorts with the lock at path, for the given ports.
func checkPortsOf(path string, ports ...int) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return fmt.Errorf("in-memory provider port lock %s: %w", path, err)
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return fmt.Errorf("%w on ports %d and %d and up (it holds the lock %s)", ErrLocked, DebugPort, FirstWorkloadPort, path)
	}
	if err != nil {
		return fmt.Errorf("in-memory provider port lock %s: %w", path, err)
	}
	defer func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }()
	for _, port := range ports {
		if err := portFree(port); err != nil {
			return fmt.Errorf("the in-memory provider needs port %d, which cannot be moved, and something else holds it: %w", port, err)
		}
	}
	return nil
}

// unlock releases the lock; closing the file alone would too.
func (l *portLock) unlock() {
	_ = syscall.Flock(int(l.file.Fd()), syscall.LOCK_UN)
	l.file.Close()
}
