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

package localclustertest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
)

// apiserverPIDPath is the pid file KillAPIServer reads.
func apiserverPIDPath(dir string) string { return filepath.Join(dir, "run", "kube-apiserver.pid") }

func readPID(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// alive reports whether pid is a process that has not ended; a zombie has.
func alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses: "pid (comm) S ...".
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// The restart drill's crash: kube-apiserver is gone when KillAPIServer
// returns, its pid file with it, and it comes back on the same data.
func TestKillAPIServer_EndsItAtOnceAndStartAPIServerBringsItBack(t *testing.T) {
	ctx := context.Background()
	c := startCluster(t, options(t))
	cl, err := client.New(c.Config(), client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "survivor"}}
	if err := cl.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	pid := readPID(t, apiserverPIDPath(c.Dir()))

	if err := KillAPIServer(c); err != nil {
		t.Fatalf("KillAPIServer: %v", err)
	}
	if alive(pid) {
		t.Errorf("kube-apiserver (pid %d) still runs after KillAPIServer", pid)
	}
	if _, err := os.Stat(apiserverPIDPath(c.Dir())); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the pid file is still there (%v): the next start would think it runs", err)
	}
	if err := cl.Get(ctx, client.ObjectKeyFromObject(ns), &corev1.Namespace{}); err == nil {
		t.Fatal("kube-apiserver still answers after KillAPIServer")
	}
	if err := KillAPIServer(c); err != nil {
		t.Errorf("a second KillAPIServer, with nothing to kill: %v", err)
	}

	if err := c.StartAPIServer(ctx); err != nil {
		t.Fatalf("start kube-apiserver again: %v", err)
	}
	if err := cl.Get(ctx, client.ObjectKeyFromObject(ns), &corev1.Namespace{}); err != nil {
		t.Fatalf("namespace lost across the crash: %v", err)
	}
}

// A pid file left behind can name a process that is no kube-apiserver of
// ours by now; KillAPIServer leaves it alone.
func TestKillAPIServer_SparesAProcessThatReusedTheNumber(t *testing.T) {
	c := startCluster(t, options(t))
	if err := c.StopAPIServer(); err != nil {
		t.Fatal(err)
	}
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Process.Kill() })
	if err := os.WriteFile(apiserverPIDPath(c.Dir()), []byte(strconv.Itoa(other.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}

	if err := KillAPIServer(c); err != nil {
		t.Fatalf("KillAPIServer: %v", err)
	}
	// End it ourselves: how it ended tells whether KillAPIServer got to it
	// first, with no window to wait out (a SIGKILL already sent wins).
	_ = other.Process.Signal(syscall.SIGTERM)
	err := other.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("sleep ended with %v, want a signal", err)
	}
	if status := exit.Sys().(syscall.WaitStatus); status.Signal() != syscall.SIGTERM {
		t.Errorf("KillAPIServer killed pid %d, which is not kube-apiserver (it ended by %v)", other.Process.Pid, status.Signal())
	}
}
