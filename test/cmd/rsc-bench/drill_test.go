package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestDrill_UnknownDrillFailsBeforeStartingAnything(t *testing.T) {
	var stdout, stderr bytes.Buffer
	dir := t.TempDir()
	code := runDrill(context.Background(), []string{"--drills", "flap,chaos", "--local-dir", dir + "/cluster", "--out", dir + "/out"}, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit code %d, want 1; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), `unknown drill "chaos"`) {
		t.Errorf("stderr %q does not name the unknown drill", stderr.String())
	}
	if strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 {
		t.Errorf("stderr is not one line:\n%s", stderr.String())
	}
}
