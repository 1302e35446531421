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
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capiflow"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capinode"
)

// timeline is what happened during a flow with faults, as the test did it
// and as it saw the managers react, in order: the run's output is where
// the figures of docs/node.md come from.
type timeline struct {
	mu     sync.Mutex
	start  time.Time
	events []string
}

func newTimeline() *timeline { return &timeline{start: time.Now()} }

// mark notes an event at the time it is called.
func (tl *timeline) mark(format string, args ...any) { tl.markAt(time.Now(), format, args...) }

// markAt notes an event at the time it happened, when that is known from
// a record (a container's end, a Lease's renewal).
func (tl *timeline) markAt(at time.Time, format string, args ...any) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.events = append(tl.events, fmt.Sprintf("%s +%6.1fs  %s", at.Format("15:04:05.0"), at.Sub(tl.start).Seconds(), fmt.Sprintf(format, args...)))
}

// String is every event, sorted by time (the events marked from records
// arrive late).
func (tl *timeline) String() string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	lines := append([]string(nil), tl.events...)
	sort.Stable(byTime(lines))
	return strings.Join(lines, "\n")
}

// byTime sorts events by their time of day, which each starts with (a
// flow does not run across midnight).
type byTime []string

func (s byTime) Len() int           { return len(s) }
func (s byTime) Less(i, j int) bool { return s[i][:10] < s[j][:10] }
func (s byTime) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }

// flowWatch samples, every second, what tells how the managers see a
// fault: whether the apiserver answers, who holds the core manager's
// Lease, the Cluster's TopologyReconciled condition, what the test
// extension recorded, how many of its Pods are ready, and which
// containers restarted. It marks each change on the timeline.
type flowWatch struct {
	tl *timeline
	m  *capinode.Management
	c  client.Client

	apiDown    bool
	holder     string
	topology   string
	hooks      map[string]string
	extReady   int32
	restarts   map[string]int32
	extReadSet bool
}

// watchFlow starts sampling; stop ends it.
func watchFlow(ctx context.Context, tl *timeline, m *capinode.Management) (stop func()) {
	w := &flowWatch{tl: tl, m: m, c: m.Client(), hooks: map[string]string{}, restarts: map[string]int32{}}
	return polltest.Every(ctx, time.Second, w.sample)
}

func (w *flowWatch) sample(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	holder, renewed, err := w.m.LeaseHolder(ctx)
	if down := err != nil && !strings.Contains(err.Error(), "not found"); down != w.apiDown {
		w.apiDown = down
		if down {
			w.tl.mark("watch: the apiserver does not answer (%v)", err)
		} else {
			w.tl.mark("watch: the apiserver answers again")
		}
	}
	if w.apiDown {
		return
	}
	if err == nil && holder != w.holder {
		w.holder = holder
		w.tl.mark("watch: the core manager's Lease is held by %s (renewed %s)", holder, renewed.Format("15:04:05"))
	}
	w.sampleTopology(ctx)
	w.sampleHooks(ctx)
	w.sampleExtension(ctx)
	w.sampleRestarts(ctx)
}

// sampleTopology marks each new status and reason of the Cluster's
// TopologyReconciled, with the start of its message: how the topology
// controller sees a hook it cannot call.
func (w *flowWatch) sampleTopology(ctx context.Context) {
	cluster := &clusterv1.Cluster{}
	if err := w.c.Get(ctx, client.ObjectKey{Namespace: capiflow.Namespace, Name: capiflow.ClusterName}, cluster); err != nil {
		return
	}
	c := meta.FindStatusCondition(cluster.Status.Conditions, clusterv1.ClusterTopologyReconciledCondition)
	if c == nil {
		return
	}
	now := string(c.Status) + " (" + c.Reason + ")"
	if now == w.topology {
		return
	}
	w.topology = now
	msg := strings.ReplaceAll(c.Message, "\n", " ")
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	w.tl.mark("watch: Cluster TopologyReconciled=%s: %s", now, msg)
}

// sampleHooks marks each answer the test extension records anew.
func (w *flowWatch) sampleHooks(ctx context.Context) {
	recorded, err := capimanagement.HookResponses(ctx, w.c, capiflow.Namespace, capiflow.ClusterName, capiflow.ExtensionConfigName)
	if err != nil {
		return
	}
	keys := make([]string, 0, len(recorded))
	for k := range recorded {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if recorded[k] != w.hooks[k] {
			w.hooks[k] = recorded[k]
			w.tl.mark("watch: the test extension recorded %s: %s", k, recorded[k])
		}
	}
}

// sampleExtension marks each change in the test extension's ready Pods.
func (w *flowWatch) sampleExtension(ctx context.Context) {
	d := &appsv1.Deployment{}
	if err := w.c.Get(ctx, client.ObjectKey{Namespace: capinode.TestExtension.Namespace, Name: capinode.TestExtension.Deployment}, d); err != nil {
		return
	}
	if w.extReadSet && d.Status.ReadyReplicas == w.extReady {
		return
	}
	w.extReady, w.extReadSet = d.Status.ReadyReplicas, true
	w.tl.mark("watch: the test extension has %d ready Pods", d.Status.ReadyReplicas)
}

// sampleRestarts marks each container restart kubelet reports, at the
// time its container ended.
func (w *flowWatch) sampleRestarts(ctx context.Context) {
	restarts, err := w.m.Restarts(ctx)
	if err != nil {
		return
	}
	for _, r := range restarts {
		key := r.Pod + "/" + r.Container
		if r.Count != w.restarts[key] && r.Running {
			w.restarts[key] = r.Count
			w.tl.markAt(r.FinishedAt, "watch: %s Pod %s ended (%s, exit %d), restarted by kubelet at %s (restartCount %d)",
				r.Component.Name, r.Pod, r.Reason, r.ExitCode, r.StartedAt.Format("15:04:05"), r.Count)
		}
	}
}
