package main

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/config/crd"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/minimalclass"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
)

// replica is one manager process and the moment it became leader.
type replica struct {
	cmd    *exec.Cmd
	leader chan time.Time
}

// startReplica starts one replica with leader election; args come after
// the defaults (no metrics or probe endpoints) and override them.
func startReplica(t *testing.T, binary, kubeconfig string, lease time.Duration, args ...string) *replica {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--kubeconfig", kubeconfig,
		"--leader-elect", "--leader-election-namespace", "kube-system",
		"--leader-election-lease-duration", lease.String(),
		"--leader-election-renew-deadline", (lease * 3 / 4).String(),
		"--leader-election-retry-period", "500ms",
		"--metrics-bind-address=0", "--health-probe-bind-address=0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	r := &replica{cmd: cmd, leader: make(chan time.Time, 1)}
	go func() {
		scanner := bufio.NewScanner(stderr)
		for scanner.Scan() {
			if strings.Contains(strings.ToLower(scanner.Text()), "successfully acquired lease") {
				r.leader <- time.Now()
			}
		}
	}()
	return r
}

// awaitLeadership waits until r leads, failing the test after within.
func (r *replica) awaitLeadership(t *testing.T, within time.Duration, which string) time.Time {
	t.Helper()
	select {
	case at := <-r.leader:
		return at
	case <-time.After(within):
		t.Fatalf("the %s replica did not become leader within %s", which, within)
		return time.Time{}
	}
}

// startTestCluster starts a local control plane with our CRDs and the
// minimalclass's template CRDs, stopped when the test ends.
func startTestCluster(t *testing.T) *localcluster.Cluster {
	t.Helper()
	binDir, err := toolbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	crds, err := crd.Definitions()
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := localcluster.Start(context.Background(), localcluster.Options{Dir: t.TempDir(), BinDir: binDir, CRDs: append(crds, minimalclass.TemplateCRDs()...)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cluster.Stop() })
	return cluster
}

func TestBinary_LeaderElectionFailsOverWithinTheLeaseDuration(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane and two managers")
	}
	cluster := startTestCluster(t)
	binary := buildBinary(t)
	const lease = 4 * time.Second

	first := startReplica(t, binary, cluster.KubeconfigPath(), lease)
	first.awaitLeadership(t, time.Minute, "first")
	second := startReplica(t, binary, cluster.KubeconfigPath(), lease)
	// While the first holds the lease, the second must not lead. Two
	// retry periods of the second are enough for it to try and fail.
	select {
	case <-second.leader:
		t.Fatal("two replicas lead at once")
	case <-time.After(3 * time.Second):
	}

	// A crash: SIGKILL releases nothing, so the lease must expire.
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	at := second.awaitLeadership(t, lease+30*time.Second, "second")
	// The lease was renewed at most a retry period before the kill; allow
	// retry periods of the second and a loaded machine's scheduling (seen:
	// 5.1 s under a cold CI run) on top of it.
	if took := at.Sub(killed); took > lease+2*time.Second {
		t.Errorf("the second replica took over %s after the kill, more than the %s lease", took.Round(time.Millisecond), lease)
	} else {
		t.Logf("failover took %s (lease %s)", took.Round(time.Millisecond), lease)
	}
}
