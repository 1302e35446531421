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
	lock := filepath.Join(dir, "lock")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	m, err := Start(ctx, Options{BinDir: binDir, Dir: filepath.Join(dir, "mgmt"), CoreManager: broken, lockFile: lock})
	if err == nil {
		m.Stop()
		t.Fatal("Start succeeded with a core manager that exits at once")
	}
	if !strings.Contains(err.Error(), "broken: no such cluster") {
		t.Errorf("error %q lacks the last lines of the core manager's log", err)
	}
	again, err := lockPortsOf(ctx, lock)
	if err != nil {
		t.Fatalf("the ports' lock was not released: %v", err)
	}
	again.unlock()
}
