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

package localcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Process is one child of a local cluster: etcd and kube-apiserver here,
// and the node's components in the lab. Its output goes to LogPath, and
// PIDPath names it while it runs.
type Process struct {
	Name    string
	Binary  string
	Args    []string
	LogPath string
	PIDPath string
	// Env replaces the environment when set; nil inherits ours.
	Env []string
	// DeathSignal is what the kernel sends the process when we die without
	// stopping it; zero means SIGTERM.
	DeathSignal syscall.Signal

	cmd  *exec.Cmd
	done chan struct{}
	err  error // set before done is closed
}

// Start launches the process. It refuses to start when the pid file names a
// live process: two control planes on one data directory would corrupt it.
func (p *Process) Start() error {
	if pid, alive := livePID(p.PIDPath); alive {
		return fmt.Errorf("%s from an earlier run is still running (pid %d, %s): stop it first", p.Name, pid, p.PIDPath)
	}
	logFile, err := os.OpenFile(p.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open log for %s: %w", p.Name, err)
	}
	fmt.Fprintf(logFile, "\n--- %s starting at %s: %s %s\n", p.Name, time.Now().Format(time.RFC3339), p.Binary, strings.Join(p.Args, " "))

	cmd := exec.Command(p.Binary, p.Args...)
	cmd.Env = p.Env
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// Own process group: a Ctrl-C in the terminal reaches only us, and we
		// stop the children in order (apiserver before etcd).
		Setpgid: true,
		// If we die without stopping them, the kernel tells them to stop.
		Pdeathsig: p.deathSignalOrTerm(),
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	p.cmd = cmd
	p.done = make(chan struct{})
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	if err := os.WriteFile(p.PIDPath, []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		// Waited for above, so that a later Stop returns.
		_ = cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("write pid file for %s: %w", p.Name, err)
	}
	return nil
}

func (p *Process) deathSignalOrTerm() syscall.Signal {
	if p.DeathSignal == 0 {
		return syscall.SIGTERM
	}
	return p.DeathSignal
}

// Exited reports whether the process has ended, and how.
func (p *Process) Exited() (bool, error) {
	if p.done == nil {
		return false, nil
	}
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// WaitReady waits until url answers 200 OK (see WaitReady). A process that
// exits is reported with its log's last error.
func (p *Process) WaitReady(ctx context.Context, timeout time.Duration, client *http.Client, url string) error {
	return WaitReady(ctx, Readiness{
		URL: url, Client: client, Timeout: timeout, Name: p.Name, LogPath: p.LogPath,
		Ended: func() error {
			if ended, err := p.Exited(); ended {
				return fmt.Errorf("%s exited during start-up (%v): %s (full log: %s)", p.Name, err, p.LastError(), p.LogPath)
			}
			return nil
		},
	})
}

// Stop sends SIGTERM, waits up to grace, then kills. It is safe to call on a
// process that never started or already ended.
func (p *Process) Stop(grace time.Duration) error {
	if p.cmd == nil {
		return nil
	}
	defer os.Remove(p.PIDPath)
	if ended, _ := p.Exited(); ended {
		return nil
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	_ = p.cmd.Process.Kill()
	<-p.done
	return fmt.Errorf("%s did not stop within %s and was killed", p.Name, grace)
}

// LastError returns the last line of the process's log that reports an
// error (klog's "E" lines, etcd's "error" level), which is usually why it
// exited, or the last line when none does.
func (p *Process) LastError() string {
	data, err := os.ReadFile(p.LogPath)
	if err != nil {
		return "no log"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		line := lines[i]
		if strings.HasPrefix(line, "E") || strings.Contains(line, `"level":"error"`) ||
			strings.Contains(line, `"level":"fatal"`) || strings.Contains(line, `"level":"panic"`) {
			return strings.TrimSpace(line)
		}
	}
	return strings.TrimSpace(lines[len(lines)-1])
}

// livePID reads a pid file and reports whether that process still exists.
func livePID(path string) (int, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	// Signal 0 checks existence without touching the process.
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return pid, false
	}
	// A pid can be reused by an unrelated program after a crash: only count
	// it when the command line names the binary we started.
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return pid, false
	}
	return pid, bytes.Contains(cmdline, []byte(strings.TrimSuffix(filepath.Base(path), ".pid")))
}
