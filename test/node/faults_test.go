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
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capiflow"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capinode"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/hookpath"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/node"
)

// How long each fault lasts.
const (
	extensionAwayFor = 2 * time.Minute
	apiServerDownFor = 30 * time.Second
)

// Cluster API's provisioning flow through the faults a management cluster
// meets, with the core manager's Deployment at two replicas (the drop-in,
// or Cluster API's own with RSC_NODE_CORE=capi), one after the other:
//
//   - during the upgrade, the test extension's Deployment scaled to 0 for
//     two minutes, then back: blocking hooks wait, and every hook is
//     recorded;
//   - before the scale, the leader's /manager killed with SIGKILL inside
//     its container: kubelet restarts it once, and the Lease passes on;
//   - before the delete, kube-apiserver stopped for 30 s, longer than the
//     Lease's renew deadline, and started again with the same arguments:
//     a restart of a manager that lost its Lease then is the fault's, and
//     every component must be served again.
//
// Any other restart fails the flow. The test prints the timeline of each
// fault: when it happened, when the managers saw it, when the flow went on.
//
// The broken neighbour has a test of its own, not a place here: with it,
// Cluster API's own manager cannot take over. Its new leader's registry
// warm-up discovers every ExtensionConfig, fails on the neighbour for its
// 60 s, and the manager exits (core/reconcilers/extensionconfig/warmup.go,
// seen after the SIGKILL here), again at every takeover, so the flow
// could not be run under both managers.
func TestInside_ClusterAPIsFlowRidesOutFaults(t *testing.T) {
	n := inside(t)
	binDir, err := toolbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	coreImage, _ := coreUnderTest(t)
	requireNoClusterAPI(ctx, t, n)
	m, err := capinode.Install(ctx, capinode.Options{
		BinDir: binDir, Config: n.Config(), CoreImage: coreImage, CoreReplicas: 2, Progress: logWriter{t},
	})
	if m != nil {
		t.Cleanup(m.Close)
	}
	removeWhenDone(t, n)
	if err != nil {
		t.Fatalf("install Cluster API's components: %v", err)
	}
	tl := newTimeline()
	t.Cleanup(func() { t.Logf("timeline (%s, time since the components were installed):\n%s", coreImage, tl) })
	t.Cleanup(func() {
		if t.Failed() {
			for _, comp := range capinode.Components {
				t.Logf("%s log (last 30 lines):\n%s", comp.Name, m.LogTail(context.Background(), comp, 30))
			}
		}
	})
	stopWatch := watchFlow(ctx, tl, m)
	defer stopWatch()

	var away *extensionAway
	requests := &extensionRequests{byIncarnation: map[string]map[string]float64{}}
	result := capiflow.Run(ctx, t, m, capiflow.Options{
		Manager: coreImage + " as Pods, with faults", Client: m.Client(), BinDir: binDir,
		Before: func(step string) {
			checkForbidden(ctx, t, m, "before "+step)
			tl.mark("flow: the %s step begins", step)
			switch step {
			case "upgrade":
				requests.sample(ctx, t, m)
				away = takeExtensionAway(ctx, t, m, tl, extensionAwayFor)
			case "scale":
				away.wait(t)
				crashLeader(ctx, t, n, m, tl)
			case "delete":
				requests.sample(ctx, t, m)
				restartAPIServer(ctx, t, n, m, tl, apiServerDownFor)
			}
		},
	})
	tl.mark("flow: the Cluster is deleted")
	stopWatch()
	checkForbidden(ctx, t, m, "at the end")
	t.Log(result.Summary())
	requests.sample(ctx, t, m)
	t.Logf("test extension requests by hook over the whole flow, every Pod and restart of it: %s", requests)
}

// extensionAway is the test extension scaled to 0 for a while, then back.
type extensionAway struct {
	done chan struct{}
	err  error
}

// takeExtensionAway scales the test extension's Deployment to 0, waits
// until it has no Pod and no endpoint, and scales it back to its replicas
// after the given time, without blocking the flow.
func takeExtensionAway(ctx context.Context, t *testing.T, m *capinode.Management, tl *timeline, awayFor time.Duration) *extensionAway {
	t.Helper()
	a := &extensionAway{done: make(chan struct{})}
	tl.mark("fault extension-away: the test extension's Deployment is scaled to 0")
	replicas, err := m.Scale(ctx, capinode.TestExtension, 0)
	if err != nil {
		t.Fatal(err)
	}
	tl.mark("fault extension-away: the test extension has no Pod and no endpoint; back in %s", awayFor)
	go func() {
		defer close(a.done)
		timer := time.NewTimer(awayFor)
		defer timer.Stop()
		select {
		case <-ctx.Done():
			a.err = ctx.Err()
			return
		case <-timer.C:
		}
		tl.mark("fault extension-away: the test extension's Deployment is scaled back to %d", replicas)
		if _, a.err = m.Scale(ctx, capinode.TestExtension, replicas); a.err == nil {
			tl.mark("fault extension-away: the test extension is rolled out and served again")
		}
	}()
	return a
}

// wait waits until the extension is back, and fails the test if it did
// not come back.
func (a *extensionAway) wait(t *testing.T) {
	t.Helper()
	<-a.done
	if a.err != nil {
		t.Fatalf("bring the test extension back: %v", a.err)
	}
}

// extensionRequests are the test extension's requests by hook, kept for
// each of its incarnations: a new Pod, or its container restarted, counts
// from 0 again.
type extensionRequests struct {
	byIncarnation map[string]map[string]float64
}

// sample reads the requests of the extension's current incarnation; call
// it before a fault that may end it, and at the end.
func (e *extensionRequests) sample(ctx context.Context, t *testing.T, m *capinode.Management) {
	t.Helper()
	incarnation, err := m.Incarnation(ctx, capinode.TestExtension)
	if err != nil {
		t.Fatal(err)
	}
	metrics, err := m.Scrape(ctx, capimanagement.TestExtensionName)
	if err != nil {
		t.Fatal(err)
	}
	e.byIncarnation[incarnation] = requestsByHook(metrics)
}

// String is every incarnation's requests, summed by hook.
func (e *extensionRequests) String() string {
	sum := map[string]float64{}
	for _, requests := range e.byIncarnation {
		for hook, n := range requests {
			sum[hook] += n
		}
	}
	hooks := make([]string, 0, len(sum))
	for hook, n := range sum {
		if n > 0 {
			hooks = append(hooks, hook)
		}
	}
	sort.Strings(hooks)
	parts := make([]string, 0, len(hooks))
	for _, hook := range hooks {
		parts = append(parts, fmt.Sprintf("%s %.0f", hook, sum[hook]))
	}
	return fmt.Sprintf("%s (%d incarnations)", strings.Join(parts, ", "), len(e.byIncarnation))
}

// requestsByHook sums controller-runtime's webhook requests by hook.
func requestsByHook(metrics managerprocess.Metrics) map[string]float64 {
	requests := map[string]float64{}
	for _, series := range metrics["controller_runtime_webhook_requests_total"].GetMetric() {
		for _, l := range series.GetLabel() {
			if l.GetName() == "webhook" {
				requests[hookpath.Hook(l.GetValue())] += series.GetCounter().GetValue()
			}
		}
	}
	return requests
}

// crashLeader kills the leading core manager's /manager with SIGKILL from
// the host, waits until kubelet restarted it (once), another process holds
// the Lease and the core's webhook is served again, and expects that one
// restart.
func crashLeader(ctx context.Context, t *testing.T, n *node.Node, m *capinode.Management, tl *timeline) {
	t.Helper()
	holder, _, err := m.LeaseHolder(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pod, _, _ := strings.Cut(holder, "_")
	containerID := ""
	ids, err := m.ContainerIDs(ctx, capinode.Core)
	if err != nil {
		t.Fatal(err)
	}
	if containerID = ids[pod]; containerID == "" {
		t.Fatalf("the leader %s has no running manager container (%v)", pod, ids)
	}
	pid, err := n.KillContainer(containerID, "/manager", syscall.SIGKILL)
	killed := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	tl.markAt(killed, "fault crash: SIGKILL to /manager (pid %d on the host) of %s, the leader (%s)", pid, pod, holder)
	var restart capinode.Restart
	polltest.Eventually(t, 2*time.Minute, "kubelet restarts the leader's manager container", func() (bool, string) {
		restarts, err := m.Restarts(ctx)
		if err != nil {
			return false, err.Error()
		}
		for _, r := range restarts {
			if r.Pod == pod && r.Container == "manager" && r.Running {
				restart = r
				return true, ""
			}
		}
		return false, fmt.Sprintf("restarts so far: %v", restarts)
	})
	tl.markAt(restart.FinishedAt, "fault crash: kubelet saw the container end (%s, exit %d)", restart.Reason, restart.ExitCode)
	tl.markAt(restart.StartedAt, "fault crash: kubelet started it again (restartCount %d)", restart.Count)
	if restart.Count != 1 {
		t.Errorf("the leader's container restarted %d times, want once", restart.Count)
	}
	m.ExpectRestarts(restart)
	var next string
	polltest.Eventually(t, 2*time.Minute, "another process holds the core manager's Lease", func() (bool, string) {
		h, _, err := m.LeaseHolder(ctx)
		next = h
		return err == nil && h != "" && h != holder, fmt.Sprintf("held by %q (%v)", h, err)
	})
	tl.mark("fault crash: the Lease is held by %s, %.1fs after the kill", next, time.Since(killed).Seconds())
	if err := m.WaitServed(ctx, capinode.Core); err != nil {
		t.Fatal(err)
	}
	tl.mark("fault crash: the core Deployment is available and its webhook served, %.1fs after the kill", time.Since(killed).Seconds())
	if err := m.Exited(); err != nil {
		t.Fatalf("a restart the crash does not explain: %v", err)
	}
}

// restartAPIServer stops kube-apiserver, starts it again down after the
// SIGTERM, waits until every component is served again and the Lease
// renewed, and expects every restart of a container that ended meanwhile:
// each is marked on the timeline with the end of its log.
func restartAPIServer(ctx context.Context, t *testing.T, n *node.Node, m *capinode.Management, tl *timeline, down time.Duration) {
	t.Helper()
	began := time.Now()
	tl.mark("fault apiserver: kube-apiserver gets SIGTERM")
	started := false
	// A test that fails while it is down still needs it to remove what it
	// installed.
	t.Cleanup(func() {
		if !started {
			if err := n.StartAPIServer(context.Background()); err != nil {
				t.Errorf("start kube-apiserver again: %v", err)
			}
		}
	})
	// It closes its listener at once, and then took more than the 20 s
	// the harness gives it to finish: killed then, it is stopped all the
	// same.
	err := n.StopAPIServer()
	if err != nil && !strings.Contains(err.Error(), "was killed") {
		t.Fatal(err)
	}
	tl.mark("fault apiserver: kube-apiserver stopped (%v); it starts again %s after the SIGTERM", err, down)
	timer := time.NewTimer(time.Until(began.Add(down)))
	select {
	case <-ctx.Done():
		timer.Stop()
		t.Fatal(ctx.Err())
	case <-timer.C:
	}
	tl.mark("fault apiserver: kube-apiserver starts with the same arguments")
	started = true
	if err := n.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	ready := time.Now()
	tl.mark("fault apiserver: kube-apiserver ready")
	polltest.Eventually(t, 2*time.Minute, "the core manager's Lease renewed after the apiserver's restart", func() (bool, string) {
		holder, renewed, err := m.LeaseHolder(ctx)
		if err != nil {
			return false, err.Error()
		}
		if renewed.Before(ready) {
			return false, fmt.Sprintf("%s last renewed at %s", holder, renewed.Format(time.TimeOnly))
		}
		tl.markAt(renewed, "fault apiserver: the core manager's Lease renewed by %s", holder)
		return true, ""
	})
	for _, comp := range capinode.Components {
		if err := m.WaitServed(ctx, comp); err != nil {
			t.Fatal(err)
		}
	}
	tl.mark("fault apiserver: every component is available and its webhook served, %.1fs after kube-apiserver was ready", time.Since(ready).Seconds())
	restarts, err := m.Restarts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range restarts {
		if r.FinishedAt.Before(began) {
			continue // an earlier fault's, which Exited judges
		}
		why, err := m.PreviousLogTail(ctx, r.Component, r.Pod, 2)
		if err != nil {
			why = err.Error()
		}
		tl.markAt(r.FinishedAt, "fault apiserver: %s Pod %s's container last ended (%s, exit %d), restarted at %s (restartCount %d); the end of its log: %s",
			r.Component.Name, r.Pod, r.Reason, r.ExitCode, r.StartedAt.Format("15:04:05"), r.Count, strings.ReplaceAll(why, "\n", " | "))
		m.ExpectRestarts(r)
	}
	if err := m.Exited(); err != nil {
		t.Fatalf("a restart the apiserver's outage does not explain: %v", err)
	}
}
