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
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/proctest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
)

// parentDirEnv, when set, makes this test binary the parent of a control
// plane in that directory instead of running tests.
const parentDirEnv = "LOCALCLUSTER_TEST_PARENT_DIR"

// parentReady is what the parent prints once its control plane is up.
const parentReady = "control plane ready"

func TestMain(m *testing.M) {
	if dir := os.Getenv(parentDirEnv); dir != "" {
		os.Exit(runParent(dir))
	}
	if low := os.Getenv(reserverLowEnv); low != "" {
		os.Exit(runReserver(low))
	}
	os.Exit(m.Run())
}

// runParent starts a control plane in dir, says so, and waits to be killed
// (or gives up after parentLife).
func runParent(dir string) int {
	binDir, err := toolbin.Dir()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, err := Start(context.Background(), Options{Dir: dir, BinDir: binDir}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(parentReady)
	time.Sleep(parentLife)
	return 1
}

// parentLife bounds the parent's wait, should the test never kill it.
const parentLife = 10 * time.Minute

// Nobody can call Stop after a SIGKILL; the kernel's parent-death signal
// must stop etcd and kube-apiserver on its own.
func TestStart_ChildrenStopWhenTheParentIsKilled(t *testing.T) {
	toolbin.SkipShort(t)
	dir := t.TempDir()
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), parentDirEnv+"="+dir)
	// Should this test process die first, the parent goes too.
	parent.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	parent.Stderr = &stderr
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = parent.Process.Kill(); _ = parent.Wait() })

	ready := make(chan bool, 1)
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			if scanner.Text() == parentReady {
				ready <- true
				return
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			_ = parent.Wait()
			t.Fatalf("the parent exited before its control plane was up: %s", stderr.String())
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
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	proctest.WaitGone(t, pids, 30*time.Second)
}
