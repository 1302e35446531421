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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A process that does not become ready fails Start with the last lines of
// its log; what was started is stopped and the ports' lock released.
func TestStart_AProcessThatDoesNotStartFailsWithItsLogAndLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	binDir := Require(t)
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken-core-manager")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho 'broken: no such cluster' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Start checks the in-memory provider's ports before anything starts,
	// so this test takes the shared lock and waits behind a flow that holds
	// them (go test runs test/e2e beside it): a lock of its own let it find
	// port 19000 taken (seen in make test).
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	m, err := Start(ctx, Options{BinDir: binDir, Dir: filepath.Join(dir, "mgmt"), CoreManager: broken})
	if err == nil {
		m.Stop()
		t.Fatal("Start succeeded with a core manager that exits at once")
	}
	if !strings.Contains(err.Error(), "broken: no such cluster") {
		t.Errorf("error %q lacks the last lines of the core manager's log", err)
	}
	again, err := lockPortsOf(ctx, lockFile)
	if err != nil {
		t.Fatalf("the ports' lock was not released: %v", err)
	}
	again.unlock()
}

func TestPortTaken_ReadsOnlyTheAttemptsOwnLines(t *testing.T) {
	log := filepath.Join(t.TempDir(), "provider.log")
	first := "E1204 problem running manager err=\"failed to start metrics server: listen tcp 127.0.0.1:1: bind: address already in use\"\n"
	if err := os.WriteFile(log, []byte(first), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		from int64
		want bool
	}{
		{"the whole log", 0, true},
		{"after the first attempt's lines", int64(len(first)), false},
		{"past the end", int64(len(first)) + 10, false},
	}
	for _, tt := range tests {
		if got := portTaken(log, tt.from); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if portTaken(filepath.Join(t.TempDir(), "none.log"), 0) {
		t.Error("a missing log reads as a taken port")
	}
}
