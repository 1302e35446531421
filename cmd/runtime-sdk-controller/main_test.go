package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/proctest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/toolbin"
)

func TestRun_BadInputIsOneLineAndANonZeroExit(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)

	garbage := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(garbage, []byte("clusters: [this is: not: a kubeconfig"), 0o600); err != nil {
		t.Fatal(err)
	}
	aFile := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(aFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	quiet := []string{"--metrics-bind-address=0", "--health-probe-bind-address=0"}

	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  []string
	}{
		{name: "kubeconfig that does not parse", args: []string{"--kubeconfig", garbage}, wantCode: 1, wantErr: []string{"kubeconfig " + garbage}},
		{name: "missing binaries", args: []string{"--local", "--local-dir", t.TempDir(), "--bin-dir", t.TempDir()}, wantCode: 1, wantErr: []string{"etcd is missing", "make tools"}},
		{name: "port in use", args: []string{"--local", "--local-dir", t.TempDir(), "--local-port", busyPort}, wantCode: 1, wantErr: []string{"port " + busyPort, "in use"}},
		{name: "unwritable data directory", args: []string{"--local", "--local-dir", filepath.Join(aFile, "data")}, wantCode: 1, wantErr: []string{"data directory", aFile}},
		{name: "unknown flag", args: []string{"--no-such-flag"}, wantCode: 2, wantErr: []string{"no-such-flag"}},
		{name: "local with kubeconfig", args: []string{"--local", "--kubeconfig", garbage}, wantCode: 2, wantErr: []string{"exclude each other"}},
		{name: "no requests to kube-apiserver", args: []string{"--kube-api-qps=0"}, wantCode: 2, wantErr: []string{"--kube-api-qps must be above 0"}},
		{name: "unbounded variables cache", args: []string{"--variables-cache-max-entries=0"}, wantCode: 2, wantErr: []string{"--variables-cache-max-entries must be at least 1, got 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append(append([]string{}, quiet...), tt.args...), &stdout, &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", code, tt.wantCode, stderr.String())
			}
			out := stderr.String()
			for _, want := range tt.wantErr {
				if !strings.Contains(out, want) {
					t.Errorf("stderr %q does not mention %q", out, want)
				}
			}
			if strings.Contains(out, "goroutine ") || strings.Contains(out, "panic:") {
				t.Errorf("stderr holds a stack trace:\n%s", out)
			}
			// Flag errors come with usage text; every other failure is one line.
			if tt.wantCode == 1 && strings.Count(strings.TrimSpace(out), "\n") != 0 {
				t.Errorf("stderr is not one line:\n%s", out)
			}
		})
	}
}

// buildBinary compiles the command once for the process-level tests.
func buildBinary(t *testing.T) string {
	t.Helper()
	return proctest.Build(t, ".", t.TempDir())
}

// startLocal runs the binary with --local and waits until it prints how to
// reach the control plane. It returns the command and the pids of etcd and
// kube-apiserver from the pid files.
func startLocal(t *testing.T, binary, dir string) (*exec.Cmd, []int) {
	t.Helper()
	binDir, err := toolbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "--local", "--local-dir", dir, "--bin-dir", binDir,
		"--metrics-bind-address=0", "--health-probe-bind-address=0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	ready := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			if line := scanner.Text(); strings.Contains(line, "export KUBECONFIG=") {
				ready <- line
			}
		}
		close(ready)
	}()
	select {
	case line, ok := <-ready:
		if !ok {
			t.Fatal("binary exited before the control plane was up")
		}
		if !strings.Contains(line, filepath.Join(dir, "kubeconfig")) {
			t.Errorf("printed %q, want the kubeconfig in %s", line, dir)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("control plane not up within 2 minutes")
	}

	var pids []int
	for _, proc := range []string{toolbin.Etcd, toolbin.KubeAPIServer} {
		data, err := os.ReadFile(filepath.Join(dir, "run", proc+".pid"))
		if err != nil {
			t.Fatalf("pid file of %s: %v", proc, err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return cmd, pids
}

func TestBinary_SignalsStopTheLocalControlPlaneWithoutOrphans(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the local control plane twice")
	}
	binary := buildBinary(t)
	dir := t.TempDir()

	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, pids := startLocal(t, binary, dir)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("manager did not exit cleanly on %s: %v", sig, err)
			}
			// Stop waits for its children, so they are gone by now.
			proctest.WaitGone(t, pids, time.Second)
		})
	}

	t.Run("SIGKILL of the manager", func(t *testing.T) {
		cmd, pids := startLocal(t, binary, dir)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		// Nobody can clean up after SIGKILL; the kernel's parent-death
		// signal must stop the children on its own.
		proctest.WaitGone(t, pids, 30*time.Second)
	})
}
