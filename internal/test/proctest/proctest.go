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

package proctest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Build compiles the main package at pkg (a path relative to the test's
// working directory, such as "." or "../sample-extension") into dir and
// returns the binary's path.
func Build(t *testing.T, pkg, dir string) string {
	t.Helper()
	abs, err := filepath.Abs(pkg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, filepath.Base(abs))
	cmd := exec.Command("go", "build", "-o", path, ".")
	cmd.Dir = abs
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return path
}

// Gone reports whether a process no longer runs: it does not exist, or it
// is a zombie waiting for a parent that is not ours to reap it.
func Gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	state, _, ok := stat(pid)
	return !ok || state == "Z"
}

// stat reads a process's state and parent pid from /proc; ok is false when
// the process is gone.
func stat(pid int) (state string, ppid int, ok bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", 0, false
	}
	// State, then parent pid, follow the parenthesised command name.
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(fields) < 2 {
		return "", 0, false
	}
	ppid, err = strconv.Atoi(fields[1])
	return fields[0], ppid, err == nil
}

// WaitGone fails the test unless every pid is gone within the deadline.
func WaitGone(t *testing.T, pids []int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for _, pid := range pids {
		for !Gone(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d still running %s after its parent stopped", pid, within)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// Children lists the running child processes of pid, from /proc.
func Children(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var children []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, ppid, ok := stat(child); ok && ppid == pid && state != "Z" {
			children = append(children, child)
		}
	}
	return children
}

// Command is the base name of the executable pid runs, from its command
// line; empty when the process is gone.
func Command(pid int) string {
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil || len(cmdline) == 0 {
		return ""
	}
	first, _, _ := bytes.Cut(cmdline, []byte{0})
	return filepath.Base(string(first))
}

// Tail returns the last lines of s, a process's output, for a failure
// message to say what it said last.
func Tail(s string, lines int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}
