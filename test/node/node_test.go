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

package node_test

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/node"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/nodehost"
)

// The node's name, network namespace and cgroup root.
const nodeName = "rsc-node"

// Environment the make target sets: the gate, and where the images are.
const (
	testEnv   = "RSC_NODE_TEST"
	imagesEnv = "RSC_NODE_IMAGES"
	dirEnv    = "RSC_NODE_DIR"
	// crashEnv makes the program inside kill itself once its tests ran,
	// leaving every component and container running.
	crashEnv = "RSC_NODE_CRASH"
	// runEnv, by hand, runs only the TestInside tests whose names it
	// matches (a regular expression), as in make node-test
	// RSC_NODE_RUN=Clusterctl.
	runEnv = "RSC_NODE_RUN"
)

// running is the node, in the program nodehost.Run starts inside it.
var running *node.Node

// TestMain runs, on the host, the tests that start and check the node
// from outside; inside the node (nodehost.Run re-runs this binary there)
// it starts the node once, runs the TestInside tests against it, and
// stops it.
func TestMain(m *testing.M) {
	if _, inside := nodehost.Inside(); !inside {
		os.Exit(m.Run())
	}
	// The clients of controller-runtime the tests make log nothing worth
	// reading; without a logger they print a warning and a stack instead.
	ctrllog.SetLogger(logr.Discard())
	binDir, err := toolbin.Dir()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	images, _ := filepath.Glob(filepath.Join(os.Getenv(imagesEnv), "*.tar"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	running, err = node.Start(ctx, node.Options{
		Name: nodeName, Dir: os.Getenv(dirEnv), BinDir: binDir, Images: images, Progress: os.Stdout,
	})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "node %s did not start: %v\n", nodeName, err)
		os.Exit(1)
	}
	// nodehost.Run asks us to stop with SIGTERM (its StopGrace): stop the
	// node in order, as after the tests.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		fmt.Fprintf(os.Stderr, "node %s: asked to stop\n", nodeName)
		if err := running.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "node %s did not stop cleanly: %v\n", nodeName, err)
		}
		os.Exit(1)
	}()
	code := m.Run()
	if os.Getenv(crashEnv) != "" {
		// As a crash would: no stop, no clean-up of our own.
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	if err := running.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "node %s did not stop cleanly: %v\n", nodeName, err)
		code = 1
	}
	os.Exit(code)
}

// inside skips a test unless it runs inside the node.
func inside(t *testing.T) *node.Node {
	t.Helper()
	if running == nil {
		t.Skip("runs inside the node only (TestNode starts it)")
	}
	return running
}

// TestNode starts the node as make node-test does, runs the TestInside
// tests in it, stops it, and checks that nothing of it is left on the
// machine: no process, cgroup, mount, network namespace or interface.
func TestNode(t *testing.T) {
	dir := nodeDir(t)
	before := hostInterfaces(t)
	run := "^TestInside"
	if only := os.Getenv(runEnv); only != "" {
		run = "^TestInside.*(?:" + only + ")"
	}
	runErr, cleanErr := runNode(t, dir, run)
	if runErr != nil {
		t.Errorf("inside the node: %v (logs in %s)", runErr, filepath.Join(dir, "logs"))
	}
	if cleanErr != nil {
		t.Errorf("clean-up: %v", cleanErr)
	}
	assertNothingLeft(t, dir, before)
}

// When the program inside dies without stopping anything, kubelet's
// containers and containerd's shims still run, in the node's cgroups and
// namespaces (the components get SIGTERM as their parent dies, and may
// take their time); the clean-up removes them all.
func TestNode_ACrashInsideLeavesNothingBehind(t *testing.T) {
	dir := nodeDir(t)
	t.Setenv(crashEnv, "1")
	before := hostInterfaces(t)
	runErr, cleanErr := runNode(t, dir, "^TestInside_SampleExtensionPodIsReadyAndAnswersThroughAService$")
	if runErr == nil || !strings.Contains(runErr.Error(), "killed") {
		t.Errorf("inside the node: %v, want it killed", runErr)
	}
	if cleanErr != nil {
		t.Errorf("clean-up: %v", cleanErr)
	}
	assertNothingLeft(t, dir, before)
}

// hostInterfaces lists the host's network interfaces.
func hostInterfaces(t *testing.T) map[string]bool {
	t.Helper()
	links, err := os.ReadDir("/sys/class/net")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, l := range links {
		names[l.Name()] = true
	}
	return names
}

// nodeDir is the node's data folder, or a skip when the make target did
// not ask for the node.
func nodeDir(t *testing.T) string {
	t.Helper()
	if os.Getenv(testEnv) == "" {
		t.Skip("make node-test runs the real node (as root, after make node-binaries node-images); set " + testEnv + "=1 to run it here")
	}
	dir, err := filepath.Abs(os.Getenv(dirEnv))
	if err != nil || os.Getenv(dirEnv) == "" {
		t.Fatalf("%s names the node's data folder: %q (%v)", dirEnv, os.Getenv(dirEnv), err)
	}
	t.Setenv(dirEnv, dir)
	return dir
}

// runNode starts the node with this binary inside, running the tests
// that match run.
func runNode(t *testing.T, dir, run string) (runErr, cleanErr error) {
	// Stopped before go test's own deadline, which would end this process
	// without the clean-up, leaving the node's containers running.
	ctx, cancel := context.Background(), func() {}
	argv := []string{os.Args[0], "-test.run=" + run, "-test.v", "-test.count=1"}
	if deadline, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-3*time.Minute))
		// The program inside ends its tests before we stop it.
		argv = append(argv, "-test.timeout="+time.Until(deadline.Add(-4*time.Minute)).Round(time.Second).String())
	}
	defer cancel()
	return nodehost.Run(ctx, nodehost.Options{Name: nodeName, Dir: dir, Stdout: os.Stdout, Stderr: os.Stderr}, argv)
}

// assertNothingLeft checks, from here, what the clean-up checked.
func assertNothingLeft(t *testing.T, dir string, interfacesBefore map[string]bool) {
	t.Helper()
	if _, err := os.Stat("/run/netns/" + nodeName); err == nil {
		t.Errorf("network namespace %s is still there", nodeName)
	}
	if dirs, _ := filepath.Glob("/sys/fs/cgroup/*/" + nodeName); len(dirs) > 0 {
		t.Errorf("cgroups still there: %v", dirs)
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(mounts), dir) || strings.Contains(string(mounts), nodehost.RunDir(nodeName)) {
		t.Errorf("mounts under %s or %s are still there", dir, nodehost.RunDir(nodeName))
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if cmdline, err := os.ReadFile(p); err == nil && (strings.Contains(string(cmdline), dir) || strings.Contains(string(cmdline), nodehost.RunDir(nodeName))) {
			t.Errorf("process %s still runs: %s", filepath.Dir(p), strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	for name := range hostInterfaces(t) {
		if !interfacesBefore[name] {
			t.Errorf("network interface %s on the host, which it did not have before", name)
		}
	}
}

// A second node of the same name, while one is up, is refused with the
// running one's pid and folder, and what runs is left alone.
func TestInside_ASecondStartIsRefusedNamingTheRunningNode(t *testing.T) {
	inside(t)
	runErr, cleanErr := nodehost.Run(context.Background(), nodehost.Options{Name: nodeName, Dir: t.TempDir()}, []string{"true"})
	if runErr == nil || !strings.Contains(runErr.Error(), "a node is up on this machine: node "+nodeName) || !strings.Contains(runErr.Error(), os.Getenv(dirEnv)) {
		t.Errorf("second start: %v, want it refused naming node %s and its folder %s", runErr, nodeName, os.Getenv(dirEnv))
	}
	if cleanErr != nil {
		t.Errorf("a refused start cleaned up: %v", cleanErr)
	}
	if _, err := os.Stat("/run/netns/" + nodeName); err != nil {
		t.Errorf("the running node's namespace: %v", err)
	}
}
