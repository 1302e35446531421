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

// process is one child of the control plane: etcd or kube-apiserver.
type process struct {
	name    string
	binary  string
	args    []string
	logPath string
	pidPath string
	// deathSignal is what the kernel sends the process when we die without
	// stopping it; zero means SIGTERM.
	deathSignal syscall.Signal

	cmd  *exec.Cmd
	done chan struct{}
	err  error // set before done is closed
}

// start launches the process. It refuses to start when the pid file names a
// live process: two control planes on one data directory would corrupt it.
func (p *process) start() error {
	if pid, alive := livePID(p.pidPath); alive {
		return fmt.Errorf("%s from an earlier run is still running (pid %d, %s): stop it first", p.name, pid, p.pidPath)
	}
	logFile, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open log for %s: %w", p.name, err)
	}
	fmt.Fprintf(logFile, "\n--- %s starting at %s: %s %s\n", p.name, time.Now().Format(time.RFC3339), p.binary, strings.Join(p.args, " "))

	cmd := exec.Command(p.binary, p.args...)
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
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	p.cmd = cmd
	p.done = make(chan struct{})
	if err := os.WriteFile(p.pidPath, []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		_ = cmd.Process.Kill()
		logFile.Close()
		return fmt.Errorf("write pid file for %s: %w", p.name, err)
	}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return nil
}

func (p *process) deathSignalOrTerm() syscall.Signal {
	if p.deathSignal == 0 {
		return syscall.SIGTERM
	}
	return p.deathSignal
}

// exited reports whether the process has ended, and how.
func (p *process) exited() (bool, error) {
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

// waitReady waits until url answers 200 OK (see WaitReady). A process that
// exits is reported with its log's last error.
func (p *process) waitReady(ctx context.Context, timeout time.Duration, client *http.Client, url string) error {
	return WaitReady(ctx, Readiness{
		URL: url, Client: client, Timeout: timeout, Name: p.name, LogPath: p.logPath,
		Ended: func() error {
			if ended, err := p.exited(); ended {
				return fmt.Errorf("%s exited during start-up (%v): %s (full log: %s)", p.name, err, p.lastError(), p.logPath)
			}
			return nil
		},
	})
}

// stop sends SIGTERM, waits up to grace, then kills. It is safe to call on a
// process that never started or already ended.
func (p *process) stop(grace time.Duration) error {
	if p.cmd == nil {
		return nil
	}
	defer os.Remove(p.pidPath)
	if ended, _ := p.exited(); ended {
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
	return fmt.Errorf("%s did not stop within %s and was killed", p.name, grace)
}

// lastError returns the last line of the process's log that reports an
// error (klog's "E" lines, etcd's "error" level), which is usually why it
// exited, or the last line when none does.
func (p *process) lastError() string {
	data, err := os.ReadFile(p.logPath)
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
