package main

import (
	"bufio"
	"bytes"
	"context"
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

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/proctest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/toolbin"
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
		return false, "it printed:\n" + strings.Join(l.output(), "\n")
	})
	return found
}

// rig is what every launch in a test shares: binaries, examples, ports.
type rig struct {
	binDir, localDir, examples, workDir string
	metrics, health, extension, admin   string
}

// newRig builds rsc-dev and, for a launch that gets that far, the
// controller and the sample extension.
func newRig(t *testing.T, full bool) *rig {
	t.Helper()
	tools, err := toolbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{binDir: t.TempDir(), localDir: t.TempDir(), examples: t.TempDir(), workDir: t.TempDir()}
	for _, tool := range []string{toolbin.Etcd, toolbin.KubeAPIServer, "kubectl"} {
		if err := os.Symlink(filepath.Join(tools, tool), filepath.Join(r.binDir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	proctest.Build(t, ".", r.binDir)
	if full {
		proctest.Build(t, "../runtime-sdk-controller", r.binDir)
		proctest.Build(t, "../sample-extension", r.binDir)
	}
	copyDir(t, "../../examples", r.examples)
	for _, addr := range []*string{&r.metrics, &r.health, &r.extension, &r.admin} {
		*addr = freeAddress(t)
	}
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
		"--metrics-address", r.metrics, "--health-address", r.health,
		"--extension-address", r.extension, "--extension-admin-address", r.admin}, extra...)
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

var (
	allReady   = regexp.MustCompile(`ClusterClasses: 3 of 3 with variables ready · ExtensionConfigs: 2, 6 handlers registered`)
	reconciles = regexp.MustCompile(`ClusterClass reconciles: (\d+)`)
)

// nextSteps are the commands rsc-dev printed, as one shell script.
func nextSteps(t *testing.T, lines []string) string {
	t.Helper()
	var script []string
	in := false
	for _, line := range lines {
		switch {
		case strings.HasPrefix(line, "Up. Logs are in"):
			in = true
		case strings.HasPrefix(line, "Ctrl-C stops everything"):
			in = false
		case in && strings.HasPrefix(line, "  ") && !strings.HasPrefix(strings.TrimSpace(line), "("):
			script = append(script, strings.TrimSpace(line))
		}
	}
	if len(script) < 5 {
		t.Fatalf("printed %d next steps, want kubeconfig, get, patch, who-uses and metrics:\n%s", len(script), strings.Join(lines, "\n"))
	}
	return "set -euo pipefail\n" + strings.Join(script, "\n") + "\n"
}

func TestBinary_ExamplesShowTheIndexAtWorkAndCtrlCStopsEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the local control plane twice")
	}
	r := newRig(t, true)
	broken := filepath.Join(r.examples, "05-broken.yaml")
	if err := os.WriteFile(broken, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: [not, a, map]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := r.start(t)
	l.waitFor(t, allReady, 2*time.Minute)
	l.waitFor(t, regexp.MustCompile(`^examples: .*05-broken\.yaml: `), time.Second)
	children := proctest.Children(l.cmd.Process.Pid)
	if len(children) != 4 {
		t.Fatalf("rsc-dev runs %d child processes, want etcd, kube-apiserver, the extension and the controller", len(children))
	}

	// Every printed command works as printed, and the settings change of
	// hardening reconciles its one user: then sizing's, all three, serves
	// as the barrier that shows nothing else was reconciled meanwhile.
	base := lastReconciles(t, l)
	script := exec.Command("bash", "-c", nextSteps(t, l.output()))
	script.Dir = r.workDir
	out, err := script.CombinedOutput()
	if err != nil {
		t.Fatalf("the printed commands failed: %v\n%s", err, out)
	}
	for _, want := range []string{"hardened", "extensionconfig.runtime.cluster.x-k8s.io/hardening patched", "discover-variables.hardening", "runtime_sdk_"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("the printed commands' output lacks %q:\n%s", want, out)
		}
	}
	l.waitFor(t, regexp.MustCompile(fmt.Sprintf(`ClusterClass reconciles: %d\b`, base+1)), time.Minute)
	c := clientFor(t, filepath.Join(r.localDir, "kubeconfig"))
	patchSettings(t, c, "sizing", "barrier")
	want := base + 1 + 3
	l.waitFor(t, regexp.MustCompile(fmt.Sprintf(`ClusterClass reconciles: %d\b`, want)), time.Minute)
	if got := lastReconciles(t, l); got != want {
		t.Errorf("after the hardening and sizing changes %d reconciles, want %d (1 for hardening's user, 3 for sizing's)", got, want)
	}

	stop(t, l, children, r.localDir, "controller", "sample extension", "kube-apiserver", "etcd")
	if !strings.Contains(strings.Join(l.output(), "\n"), "stopping: controller, then sample extension, then control plane") {
		t.Errorf("no word of the shutdown:\n%s", strings.Join(l.output(), "\n"))
	}

	// A restart keeps the user's edit: the examples are only created.
	l = r.start(t)
	l.waitFor(t, allReady, 2*time.Minute)
	hardening := &runtimev1.ExtensionConfig{}
	if err := c.Get(context.Background(), client.ObjectKey{Name: "hardening"}, hardening); err != nil {
		t.Fatal(err)
	}
	if hardening.Spec.Settings["revision"] == "" {
		t.Errorf("the restart lost the edit of hardening's settings: %v", hardening.Spec.Settings)
	}
	children = proctest.Children(l.cmd.Process.Pid)
	if err := l.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-l.ended
	// Nobody can clean up after SIGKILL; the parent-death signal must.
	proctest.WaitGone(t, children, 30*time.Second)
}

// stop sends rsc-dev the terminal's Ctrl-C and checks that it exits
// cleanly, that every child is gone, and that rsc-dev stopped them in the
// order the README promises (want, by the names rsc-dev gives them), each
// only once the one before it was gone.
func stop(t *testing.T, l *launch, children []int, localDir string, want ...string) {
	t.Helper()
	if err := l.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.ended:
	case <-time.After(time.Minute):
		t.Fatal("rsc-dev did not stop within a minute of SIGINT")
	}
	if code := l.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("rsc-dev exited %d on SIGINT, want 0", code)
	}
	proctest.WaitGone(t, children, time.Second)
	if got, wantLines := stopLines(l.output(), want), stopSequence(want); !slices.Equal(got, wantLines) {
		// What each child logged last tells a SIGTERM in turn from an
		// early death.
		var logs strings.Builder
		for _, name := range []string{"sample-extension.log", "controller.log"} {
			data, _ := os.ReadFile(filepath.Join(localDir, name))
			fmt.Fprintf(&logs, "\n--- last of %s:\n%s", name, proctest.Tail(string(data), 30))
		}
		t.Errorf("Ctrl-C stopped the children as\n  %s\nwant\n  %s\nrsc-dev said:\n%s%s",
			strings.Join(got, "\n  "), strings.Join(wantLines, "\n  "), strings.Join(l.output(), "\n"), logs.String())
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

func lastReconciles(t *testing.T, l *launch) int {
	t.Helper()
	lines := l.output()
	for i := len(lines) - 1; i >= 0; i-- {
		if m := reconciles.FindStringSubmatch(lines[i]); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n
		}
	}
	t.Fatalf("no summary printed:\n%s", strings.Join(lines, "\n"))
	return 0
}

func clientFor(t *testing.T, kubeconfig string) client.Client {
	t.Helper()
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(config, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func patchSettings(t *testing.T, c client.Client, name, revision string) {
	t.Helper()
	ext := &runtimev1.ExtensionConfig{}
	if err := c.Get(context.Background(), client.ObjectKey{Name: name}, ext); err != nil {
		t.Fatal(err)
	}
	if ext.Spec.Settings == nil {
		ext.Spec.Settings = map[string]string{}
	}
	ext.Spec.Settings["revision"] = revision
	if err := c.Update(context.Background(), ext); err != nil {
		t.Fatal(err)
	}
}

func TestBinary_APortInUseIsNamedWithTheFlagThatMovesIt(t *testing.T) {
	r := newRig(t, false)
	taken, err := net.Listen("tcp", r.extension)
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	l := r.start(t)
	select {
	case <-l.ended:
	case <-time.After(time.Minute):
		t.Fatal("rsc-dev did not stop within a minute although a port it needs is taken")
	}
	out := strings.Join(l.output(), "\n")
	if code := l.cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	want := "--extension-address " + r.extension + " is in use"
	if !strings.Contains(out, want) || !strings.Contains(out, "choose another port with --extension-address") {
		t.Errorf("output %q does not say %q and how to choose another", out, want)
	}
	if _, err := os.Stat(filepath.Join(r.localDir, "kubeconfig")); err == nil {
		t.Errorf("a control plane was started although a port was taken")
	}
}

func TestBinary_BareStartsNoExtensionAndAppliesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the local control plane")
	}
	r := newRig(t, true)
	l := r.start(t, "--bare")
	l.waitFor(t, regexp.MustCompile(`ClusterClasses: 0 of 0 with variables ready · ExtensionConfigs: 0, 0 handlers registered`), 2*time.Minute)
	children := proctest.Children(l.cmd.Process.Pid)
	if len(children) != 3 {
		t.Errorf("rsc-dev --bare runs %d child processes, want etcd, kube-apiserver and the controller", len(children))
	}
	for _, line := range l.output() {
		if strings.Contains(line, "patch extensionconfig") {
			t.Errorf("--bare prints a step for the examples: %s", line)
		}
	}

	// Against a cluster named by --kubeconfig, here the bare launch's,
	// only the controller runs: no control plane, extension or examples.
	other := *r
	other.localDir = t.TempDir()
	other.metrics, other.health = freeAddress(t), freeAddress(t)
	kubeconfig := filepath.Join(r.localDir, "kubeconfig")
	k := other.start(t, "--kubeconfig", kubeconfig)
	k.waitFor(t, regexp.MustCompile(`ClusterClasses: 0 of 0 with variables ready`), 2*time.Minute)
	only := proctest.Children(k.cmd.Process.Pid)
	if len(only) != 1 || proctest.Command(only[0]) != "runtime-sdk-controller" {
		t.Errorf("rsc-dev --kubeconfig runs %d child processes, want the controller alone", len(only))
	}
	c := clientFor(t, kubeconfig)
	for _, obj := range []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "sample-extension-ca"}}} {
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); !apierrors.IsNotFound(err) {
			t.Errorf("rsc-dev --kubeconfig wrote %T %s to the cluster (%v)", obj, obj.GetName(), err)
		}
	}
	stop(t, k, only, other.localDir, "controller")
	if !strings.Contains(strings.Join(k.output(), "\n"), "stopping the controller") {
		t.Errorf("--kubeconfig: no word of stopping the controller alone")
	}
	stop(t, l, children, r.localDir, "controller", "kube-apiserver", "etcd")
}

func TestStopLines_KeepsOnlyThePerChildLinesInTheOrderSaid(t *testing.T) {
	output := []string{
		"12:00:01 ClusterClasses: 0 of 0 with variables ready",
		"stopping the controller",
		"stopping: controller, then control plane",
		"stopping etcd", "stopping controller", "controller stopped",
		"W 12:00:02 a warning the controller logged last",
		"etcd stopped",
	}
	got := stopLines(output, []string{"controller", "etcd"})
	want := []string{"stopping etcd", "stopping controller", "controller stopped", "etcd stopped"}
	if !slices.Equal(got, want) {
		t.Errorf("stopLines = %q, want %q", got, want)
	}
	if slices.Equal(got, stopSequence([]string{"controller", "etcd"})) {
		t.Error("an overlapping stop reads as one in order")
	}
}
