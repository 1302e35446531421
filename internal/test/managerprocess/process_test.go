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
