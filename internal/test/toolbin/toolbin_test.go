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

package toolbin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck_NamesTheBinaryAndTheBuildCommand(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "not-executable"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file that the kernel cannot execute, as a truncated build would be.
	if err := os.WriteFile(filepath.Join(dir, "broken"), []byte("\x7fELF garbage"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "works"), []byte("#!/bin/sh\necho v1\n"), 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		binary  string
		wantErr []string
	}{
		{name: "missing", binary: "etcd", wantErr: []string{filepath.Join(dir, "etcd"), "is missing", "make tools"}},
		{name: "not executable", binary: "not-executable", wantErr: []string{"not an executable", "make tools"}},
		{name: "broken", binary: "broken", wantErr: []string{filepath.Join(dir, "broken"), "does not run", "make tools"}},
		{name: "works", binary: "works"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(dir, tt.binary)
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("expected an error")
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func TestDir_PrefersTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(DirEnv, dir)
	got, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if got != dir {
		t.Fatalf("Dir() = %s, want %s", got, dir)
	}
}

func TestDir_FindsBinAtTheProjectRoot(t *testing.T) {
	t.Setenv(DirEnv, "")
	got, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	// This test runs in internal/test/toolbin, three levels below the root.
	root, _ := filepath.Abs(filepath.Join("..", "..", ".."))
	if got != filepath.Join(root, "bin") {
		t.Fatalf("Dir() = %s, want %s", got, filepath.Join(root, "bin"))
	}
}
