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

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/proctest"
)

// As a Pod's first process it stops at once, with status 0, on SIGTERM.
func TestPause_ExitsZeroOnSIGTERM(t *testing.T) {
	cmd := exec.Command(proctest.Build(t, ".", t.TempDir()))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Signals sent before the handler is installed would kill it instead:
	// wait until it sleeps in its loop.
	polltest.Eventually(t, 10*time.Second, "rsc-pause to wait for signals", func() (bool, string) {
		state := procState(cmd.Process.Pid)
		return state == "S", "state " + state
	})
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v, want status 0", err)
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("rsc-pause did not exit within 10s of SIGTERM")
	}
}

// As PID 1 of a process namespace, the orphans given to it are reaped: no
// zombie stays.
func TestPause_ReapsOrphansAsPIDOne(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a process namespace needs root")
	}
	pause := proctest.Build(t, ".", t.TempDir())
	cmd := exec.Command("unshare", "--pid", "--fork", "--kill-child", pause)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var pid1 int
	polltest.Eventually(t, 10*time.Second, "rsc-pause to run as PID 1 of its namespace", func() (bool, string) {
		children := proctest.Children(cmd.Process.Pid)
		if len(children) != 1 {
			return false, "no child of unshare yet"
		}
		pid1 = children[0]
		return procState(pid1) == "S", "state " + procState(pid1)
	})
	// sh exits at once and leaves its background child, which exits soon
	// after, to the namespace's PID 1.
	orphaner := exec.Command("nsenter", "--target", strconv.Itoa(pid1), "--pid", "--", "sh", "-c", "sleep 0.2 & exit 0")
	if out, err := orphaner.CombinedOutput(); err != nil {
		t.Fatalf("nsenter: %v: %s", err, out)
	}
	polltest.Eventually(t, 10*time.Second, "the orphan to be reaped", func() (bool, string) {
		// The kernel's list of children, zombies among them until reaped.
		data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid1), "task", strconv.Itoa(pid1), "children"))
		if err != nil {
			return false, err.Error()
		}
		children := strings.Fields(string(data))
		return len(children) == 0, "children left: " + strings.Join(children, " ")
	})
}

// procState is the one-letter state in /proc/PID/stat.
func procState(pid int) string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if errors.Is(err, os.ErrNotExist) || err != nil {
		return "gone"
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) == 0 {
		return "?"
	}
	return fields[0]
}
