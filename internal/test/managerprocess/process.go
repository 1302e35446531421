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
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
)

// Options start one manager process.
type Options struct {
	// Binary is the executable.
	Binary string
	// Args are its flags, including where it serves metrics and readiness.
	Args []string
	// Env, when set, is added to the environment the process inherits.
	Env []string
	// LogPath receives the process's stdout and stderr.
	LogPath string
	// MetricsURL is where its Prometheus metrics are served over HTTP.
	MetricsURL string
	// ReadyURL answers 200 once the manager is ready; empty means no check.
	ReadyURL string
	// ReadyTimeout bounds the wait for ReadyURL; zero means two minutes.
	ReadyTimeout time.Duration
}

// Process is a running manager.
type Process struct {
	cmd        *exec.Cmd
	metricsURL string
	done       chan struct{}
	err        error // set before done is closed
	logFile    *os.File
	logPath    string
}

// stopGrace is how long a manager gets to stop after SIGTERM.
const stopGrace = 20 * time.Second

// Start starts the binary and waits until ReadyURL answers 200.
func Start(ctx context.Context, opts Options) (*Process, error) {
	logFile, err := os.OpenFile(opts.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("manager log: %w", err)
	}
	cmd := exec.Command(opts.Binary, opts.Args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	if len(opts.Env) > 0 {
		cmd.Env = append(os.Environ(), opts.Env...)
	}
	// Never outlive the tool or test that started it, even when killed.
	// Its own process group keeps a terminal's Ctrl-C from reaching it
	// directly: whoever started it stops it, in its own order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", opts.Binary, err)
	}
	p := &Process{
		cmd:        cmd,
		metricsURL: opts.MetricsURL,
		done:       make(chan struct{}),
		logFile:    logFile,
		logPath:    opts.LogPath,
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	if opts.ReadyURL == "" {
		return p, nil
	}
	timeout := opts.ReadyTimeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	if err := p.waitReady(ctx, opts.ReadyURL, timeout); err != nil {
		p.Stop()
		return nil, err
	}
	return p, nil
}

// waitReady waits until url answers 200 OK (see localcluster.WaitReady).
func (p *Process) waitReady(ctx context.Context, url string, timeout time.Duration) error {
	return localcluster.WaitReady(ctx, localcluster.Readiness{
		URL: url, Timeout: timeout, Name: p.cmd.Path, LogPath: p.logPath,
		Ended: func() error {
			if exited, err := p.Exited(); exited {
				return fmt.Errorf("%s exited during start-up (%v); see %s, which ends:\n%s", p.cmd.Path, err, p.logPath, lastLines(p.logPath, 10))
			}
			return nil
		},
	})
}

// PID is the process id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// MetricsURL is where the process serves its Prometheus metrics.
func (p *Process) MetricsURL() string { return p.metricsURL }

// LogPath is the file holding the process's output.
func (p *Process) LogPath() string { return p.logPath }

// Exited reports whether the process has ended, and how.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// Done is closed when the process has ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// Stop ends the process: SIGTERM, then SIGKILL after a grace period. It is
// safe to call more than once.
func (p *Process) Stop() {
	if exited, _ := p.Exited(); !exited {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(stopGrace):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	}
	p.logFile.Close()
}

// lastLines is the end of the log at path, for a start-up failure to say
// why when only the error reaches the reader (a CI log).
func lastLines(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(unreadable: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
