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
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/proctest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// launch is a running rsc-dev whose output the test reads.
type launch struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	ended chan struct{}
}

func (l *launch) output() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// waitFor returns the first line matching re, failing after within or as
// soon as rsc-dev exits without printing it.
func (l *launch) waitFor(t *testing.T, re *regexp.Regexp, within time.Duration) string {
	t.Helper()
	var found string
	polltest.Eventually(t, within, fmt.Sprintf("rsc-dev printing %q", re), func() (bool, string) {
		// Looked at before the lines: once ended is closed, every line is in.
		ended := false
		select {
		case <-l.ended:
			ended = true
		default:
		}
		for _, line := range l.output() {
			if re.MatchString(line) {
				found = line
				return true, ""
			}
		}
		if ended {
			t.Fatalf("rsc-dev exited before printing %q:\n%s", re, strings.Join(l.output(), "\n"))
		}
		return false, "it printed:\n" + proctest.Tail(strings.Join(l.output(), "\n"), 20)
	})
	return found
}

// lastMatch is the submatch of re in the last line that has one.
func (l *launch) lastMatch(t *testing.T, re *regexp.Regexp) int {
	t.Helper()
	lines := l.output()
	for i := len(lines) - 1; i >= 0; i-- {
		if m := re.FindStringSubmatch(lines[i]); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n
		}
	}
	t.Fatalf("no line matches %q:\n%s", re, strings.Join(lines, "\n"))
	return 0
}

// rig is what a launch in a test needs: binaries, examples, ports.
type rig struct {
	binDir, localDir, examples, workDir string
	extension, admin                    string
	testExtensionPort                   int
}

// linked are what rsc-dev runs from the tool directory as it is: the
// control plane, `make core-manager` and `make capi-providers`.
var linked = []string{
	toolbin.Etcd, toolbin.KubeAPIServer, "kubectl", "core-manager",
	capimanagement.BootstrapBinary, capimanagement.ControlPlaneBinary, capimanagement.InfrastructureBinary,
	capimanagement.TestExtensionBinary, capimanagement.ClusterctlBinary, capimanagement.DataDir,
}

// newRig links what `make run` builds from other modules into a tool
// directory of the test's and builds rsc-dev, the sample extension and the
// controller (for who-uses) from this tree into it.
func newRig(t *testing.T) *rig {
	t.Helper()
	tools := toolbin.Require(t, func(dir string) error {
		if err := toolbin.CheckAll(dir, toolbin.Etcd, toolbin.KubeAPIServer); err != nil {
			return err
		}
		for _, missing := range []struct{ name, target string }{{"kubectl", "tools"}, {"core-manager", "core-manager"}} {
			if _, err := os.Stat(filepath.Join(dir, missing.name)); err != nil {
				return fmt.Errorf("%w: build it with `make %s`", err, missing.target)
			}
		}
		return capimanagement.Check(dir)
	})
	r := &rig{binDir: t.TempDir(), localDir: t.TempDir(), examples: t.TempDir(), workDir: t.TempDir()}
	for _, name := range linked {
		if err := os.Symlink(filepath.Join(tools, name), filepath.Join(r.binDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, pkg := range []string{".", "../sample-extension", "../../../cmd/runtime-sdk-controller"} {
		proctest.Build(t, pkg, r.binDir)
	}
	copyDir(t, "../../../examples", r.examples)
	r.extension, r.admin = freeAddress(t), freeAddress(t)
	port, err := localcluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	r.testExtensionPort = port
	return r
}

// freeAddress is a loopback address whose port was free a moment ago.
func freeAddress(t *testing.T) string {
	t.Helper()
	port, err := localcluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return "127.0.0.1:" + strconv.Itoa(port)
}

func (r *rig) start(t *testing.T, extra ...string) *launch {
	t.Helper()
	args := append([]string{"--local-dir", r.localDir, "--bin-dir", r.binDir, "--examples", r.examples,
		"--extension-address", r.extension, "--extension-admin-address", r.admin,
		"--test-extension-port", strconv.Itoa(r.testExtensionPort)}, extra...)
	cmd := exec.Command(filepath.Join(r.binDir, "rsc-dev"), args...)
	cmd.Dir = r.workDir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	l := &launch{cmd: cmd, ended: make(chan struct{})}
	go func() {
		scanner := bufio.NewScanner(stdout)
		scanner.Buffer(nil, 1<<20)
		for scanner.Scan() {
			l.mu.Lock()
			l.lines = append(l.lines, scanner.Text())
			l.mu.Unlock()
		}
		_ = cmd.Wait()
		close(l.ended)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-l.ended })
	return l
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// What the summary says, as the test reads it.
var (
	firstAvailable = regexp.MustCompile(`Clusters: team-a/dev-1 Provisioned, Available · ClusterClasses: 3 of 3 with variables ready`)
	bothAvailable  = regexp.MustCompile(`Clusters: team-a/dev-1 Provisioned, Available; team-b/dev-2 Provisioned, Available · `)
	reconciles     = regexp.MustCompile(`ClusterClasses: \d+ of \d+ with variables ready, (\d+) reconciles`)
	cacheHits      = regexp.MustCompile(`response cache hits: (\d+)`)
	hooksCalled    = regexp.MustCompile(`extension requests: .*BeforeClusterCreate \d+.*DiscoverVariables \d+.*GeneratePatches \d+`)
)

// nextSteps are the commands rsc-dev printed, as one shell script.
func nextSteps(t *testing.T, lines []string) string {
	t.Helper()
	var script []string
	in := false
	for _, line := range lines {
		switch {
		case strings.HasPrefix(line, "Up in "):
			in = true
		case strings.HasPrefix(line, "Ctrl-C stops everything"):
			in = false
		case in && strings.HasPrefix(line, "  ") && !strings.HasPrefix(strings.TrimSpace(line), "("):
			script = append(script, strings.TrimSpace(line))
		}
	}
	if len(script) < 7 {
		t.Fatalf("printed %d next steps, want kubeconfig, get, the settings patch, who-uses, the annotation, the second Cluster and metrics:\n%s", len(script), strings.Join(lines, "\n"))
	}
	return "set -euo pipefail\n" + strings.Join(script, "\n") + "\n"
}

// ours are the commands of rsc-dev's children: the management cluster and
// the sample extension.
var ours = []string{
	"capi-infrastructure-docker", "capi-kubeadm-bootstrap", "capi-kubeadm-control-plane", "capi-test-extension",
	"core-manager", "etcd", "kube-apiserver", "sample-extension",
}

// The drop-in's job on a management cluster of Cluster API's own parts:
// the examples' Cluster becomes Available; every printed step works as
// printed, and does what its note says (a settings change of hardening
// reconciles its one user, the response cache annotation turns the second
// Cluster's repeated GeneratePatches calls into hits); Ctrl-C stops every
// process, in order, and leaves none running.
func TestBinary_RunsTheDropInsJobAndCtrlCStopsEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a management cluster and provisions two Clusters")
	}
	r := newRig(t)
	l := r.start(t)
	// Another package's management cluster may hold the in-memory
	// provider's ports: rsc-dev waits for it, as Start does.
	l.waitFor(t, regexp.MustCompile(`^Up in `), 25*time.Minute)
	for _, line := range l.output() {
		if strings.HasPrefix(line, "examples: ") {
			t.Errorf("an example did not apply: %s", line)
		}
	}
	children := proctest.Children(l.cmd.Process.Pid)
	var commands []string
	for _, pid := range children {
		commands = append(commands, proctest.Command(pid))
	}
	slices.Sort(commands)
	if !slices.Equal(commands, ours) {
		t.Fatalf("rsc-dev runs %q, want each of %q as its own process", commands, ours)
	}
	l.waitFor(t, firstAvailable, 5*time.Minute)
	l.waitFor(t, hooksCalled, time.Second)

	// Every printed command works as printed. hardening's settings change
	// reconciles its one user: then sizing's, all three, serves as the
	// barrier that shows nothing else was reconciled meanwhile (not the
	// annotation, nor the second Cluster).
	base := l.lastMatch(t, reconciles)
	script := exec.Command("bash", "-c", nextSteps(t, l.output()))
	script.Dir = r.workDir
	out, err := script.CombinedOutput()
	if err != nil {
		t.Fatalf("the printed commands failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"team-a      cluster.cluster.x-k8s.io/dev-1", "hardened",
		"extensionconfig.runtime.cluster.x-k8s.io/hardening patched", "generate-patches.hardening",
		"extensionconfig.runtime.cluster.x-k8s.io/test-extension annotated", "cluster.cluster.x-k8s.io/dev-2 created",
		"capi_runtime_sdk_requests_total{", "runtime_sdk_extension_calls_total{",
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("the printed commands' output lacks %q:\n%s", want, out)
		}
	}
	l.waitFor(t, regexp.MustCompile(fmt.Sprintf(`, %d reconciles`, base+1)), time.Minute)
	l.waitFor(t, bothAvailable, 5*time.Minute)
	if hits := l.lastMatch(t, cacheHits); hits == 0 {
		t.Errorf("the second Cluster made no response cache hit:\n%s", proctest.Tail(strings.Join(l.output(), "\n"), 5))
	}
	sizing := exec.Command(filepath.Join(r.binDir, "kubectl"), "patch", "extensionconfig", "sizing", "--type", "merge",
		"-p", `{"spec":{"settings":{"revision":"barrier"}}}`)
	sizing.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(r.localDir, "management", "control-plane", "kubeconfig"))
	if out, err := sizing.CombinedOutput(); err != nil {
		t.Fatalf("patch sizing: %v\n%s", err, out)
	}
	want := base + 1 + 3
	l.waitFor(t, regexp.MustCompile(fmt.Sprintf(`, %d reconciles`, want)), time.Minute)
	if got := l.lastMatch(t, reconciles); got != want {
		t.Errorf("after the hardening and sizing changes %d reconciles, want %d (1 for hardening's user, 3 for sizing's)", got, want)
	}

	stop(t, l, children)
}

// stop sends rsc-dev the terminal's Ctrl-C and checks that it exits
// cleanly, that every child is gone, and that it stopped them in the order
// the README promises, each only once the one before it was gone.
func stop(t *testing.T, l *launch, children []int) {
	t.Helper()
	if err := l.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.ended:
	case <-time.After(3 * time.Minute):
		t.Fatal("rsc-dev did not stop within 3 minutes of SIGINT")
	}
	if code := l.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("rsc-dev exited %d on SIGINT, want 0", code)
	}
	proctest.WaitGone(t, children, time.Second)
	want := []string{
		capimanagement.TestExtensionName, capimanagement.InfrastructureName, capimanagement.ControlPlaneName,
		capimanagement.BootstrapName, capimanagement.CoreManagerName, "kube-apiserver", "etcd", "sample extension",
	}
	if got, wantLines := stopLines(l.output(), want), stopSequence(want); !slices.Equal(got, wantLines) {
		t.Errorf("Ctrl-C stopped the children as\n  %s\nwant\n  %s\nrsc-dev said:\n%s",
			strings.Join(got, "\n  "), strings.Join(wantLines, "\n  "), proctest.Tail(strings.Join(l.output(), "\n"), 30))
	}
}

// stopSequence is what rsc-dev says when it stops children in order, each
// only after the one before it is gone.
func stopSequence(children []string) []string {
	var lines []string
	for _, child := range children {
		lines = append(lines, "stopping "+child, child+" stopped")
	}
	return lines
}

// stopLines are the lines of output in which rsc-dev says it stops, or
// has stopped, one of children, in the order it said them.
func stopLines(output, children []string) []string {
	said := map[string]bool{}
	for _, child := range children {
		said["stopping "+child], said[child+" stopped"] = true, true
	}
	var lines []string
	for _, line := range output {
		if said[line] {
			lines = append(lines, line)
		}
	}
	return lines
}

// A port that a process of rsc-dev needs and finds taken stops it before
// anything starts, naming the port, and the flag that moves it if one does.
func TestBinary_APortInUseStopsItBeforeAnythingStartsNamingThePort(t *testing.T) {
	r := newRig(t)
	inMemory := capimanagement.FirstWorkloadPort + 1
	for _, tc := range []struct {
		name   string
		listen string
		want   []string
	}{
		{"sample extension", r.extension, []string{"--extension-address " + r.extension + " is in use", "choose another port with --extension-address"}},
		{"test extension", ":" + strconv.Itoa(r.testExtensionPort), []string{"--test-extension-port " + strconv.Itoa(r.testExtensionPort) + " is in use"}},
		// The second Cluster's workload API server, which cannot move.
		{"in-memory provider", ":" + strconv.Itoa(inMemory), []string{fmt.Sprintf("the in-memory provider needs port %d", inMemory)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			taken, err := net.Listen("tcp", tc.listen)
			if err != nil {
				t.Skipf("%s is not free here: %v", tc.listen, err)
			}
			defer taken.Close()
			l := r.start(t)
			select {
			case <-l.ended:
			// Another package's management cluster may hold the in-memory
			// provider's ports: rsc-dev waits for it before it checks.
			case <-time.After(25 * time.Minute):
				t.Fatal("rsc-dev did not stop although a port it needs is taken")
			}
			out := strings.Join(l.output(), "\n")
			if code := l.cmd.ProcessState.ExitCode(); code != 1 {
				t.Errorf("exit code %d, want 1:\n%s", code, out)
			}
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("output does not say %q:\n%s", want, out)
				}
			}
			if _, err := os.Stat(filepath.Join(r.localDir, "management", "control-plane")); err == nil {
				t.Errorf("a control plane was started although a port was taken:\n%s", out)
			}
		})
	}
}

func TestStopLines_KeepsOnlyThePerChildLinesInTheOrderSaid(t *testing.T) {
	output := []string{
		"12:00:01 Clusters: none",
		"stopping: the management cluster (...), then the sample extension",
		"stopping etcd", "stopping core-manager", "core-manager stopped",
		"etcd stopped",
	}
	got := stopLines(output, []string{"core-manager", "etcd"})
	want := []string{"stopping etcd", "stopping core-manager", "core-manager stopped", "etcd stopped"}
	if !slices.Equal(got, want) {
		t.Errorf("stopLines = %q, want %q", got, want)
	}
	if slices.Equal(got, stopSequence([]string{"core-manager", "etcd"})) {
		t.Error("an overlapping stop reads as one in order")
	}
}
