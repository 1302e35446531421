package managerprocess

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// In CI only the error reaches the reader, not the log it names: a process
// that dies before it is ready must say in the error what it said last.
func TestStart_AProcessThatExitsDuringStartUpIsQuotedInTheError(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := Start(ctx, Options{
		Binary:   "/bin/sh",
		Args:     []string{"-c", "echo listen tcp 127.0.0.1:9443: bind: address already in use >&2; exit 1"},
		LogPath:  filepath.Join(t.TempDir(), "log"),
		ReadyURL: "http://127.0.0.1:1/healthz",
	})
	if err == nil {
		t.Fatal("Start returned no error for a process that exited")
	}
	for _, want := range []string{"exited during start-up", "bind: address already in use"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
