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
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capiflow"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capinode"
)

// The broken neighbour: an ExtensionConfig for another namespace than the
// flow's, whose extension is down (its Service selects no Pod, so that
// every call to it is refused at once, as kube-proxy refuses a Service
// with no endpoint).
const (
	neighbourNamespace = "e2e-neighbour"
	neighbourService   = "extension-down"
	neighbourConfig    = "neighbour-down"
)

// addBrokenNeighbour creates the neighbour and waits until the core
// manager reports its Discovery failed, marking both on the timeline.
func addBrokenNeighbour(ctx context.Context, t *testing.T, m *capinode.Management, tl *timeline) {
	t.Helper()
	c := m.Client()
	port := int32(443)
	for _, obj := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: neighbourNamespace}},
		&corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: neighbourNamespace, Name: neighbourService},
			Spec: corev1.ServiceSpec{
				Selector: map[string]string{"app": neighbourService},
				Ports:    []corev1.ServicePort{{Port: port, TargetPort: intstr.FromInt32(9443)}},
			},
		},
	} {
		if err := c.Create(ctx, obj); err != nil {
			t.Fatalf("the broken neighbour: %v", err)
		}
	}
	ext := m.TestExtensionConfig(neighbourConfig, neighbourNamespace)
	ext.Spec.ClientConfig.Service = runtimev1.ServiceReference{Namespace: neighbourNamespace, Name: neighbourService, Port: &port}
	if err := c.Create(ctx, ext); err != nil {
		t.Fatalf("the broken neighbour: %v", err)
	}
	tl.mark("neighbour: ExtensionConfig %s created for namespace %s, its Service %s/%s with no endpoint", neighbourConfig, neighbourNamespace, neighbourNamespace, neighbourService)
	var seen *metav1.Condition
	polltest.Eventually(t, 3*time.Minute, "the core manager reports the neighbour's Discovery failed", func() (bool, string) {
		got := &runtimev1.ExtensionConfig{}
		if err := c.Get(ctx, client.ObjectKey{Name: neighbourConfig}, got); err != nil {
			return false, err.Error()
		}
		seen = meta.FindStatusCondition(got.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition)
		return seen != nil && seen.Status == metav1.ConditionFalse, "no Discovered=False yet"
	})
	tl.mark("neighbour: the core manager reports Discovered=False (%s): %s", seen.Reason, seen.Message)
}

// checkNeighbourStillBroken fails the test unless the neighbour is still
// there and still not discovered: it was broken throughout the flow.
func checkNeighbourStillBroken(ctx context.Context, t *testing.T, m *capinode.Management) {
	t.Helper()
	got := &runtimev1.ExtensionConfig{}
	if err := m.Client().Get(ctx, client.ObjectKey{Name: neighbourConfig}, got); err != nil {
		t.Errorf("the broken neighbour at the end: %v", err)
		return
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("the broken neighbour at the end is Discovered %+v, want False", c)
	}
}

// neighbourSlack is how much slower a flow may be with the broken
// neighbour than without it.
const neighbourSlack = 0.10

// Cluster API's flow, with the core manager's Deployment at two replicas
// and no other fault, run twice one after the other on the same node,
// each on an emptied cluster: without, then with a broken neighbour (an
// ExtensionConfig for another namespace whose extension is down). A
// config the flow does not use must not slow it: each step's time with
// the neighbour stays within 10% of its time without.
func TestInside_ABrokenNeighbourLeavesTheFlowsStepTimes(t *testing.T) {
	n := inside(t)
	binDir, err := toolbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	coreImage, _ := coreUnderTest(t)
	steps := map[bool]map[string]time.Duration{}
	for _, withNeighbour := range []bool{false, true} {
		name := "without the neighbour"
		if withNeighbour {
			name = "with the neighbour"
		}
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
			defer cancel()
			requireNoClusterAPI(ctx, t, n)
			m, err := capinode.Install(ctx, capinode.Options{
				BinDir: binDir, Config: n.Config(), CoreImage: coreImage, CoreReplicas: 2, Progress: logWriter{t},
			})
			if m != nil {
				t.Cleanup(m.Close)
			}
			removeWhenDone(t, n, neighbourNamespace)
			if err != nil {
				t.Fatalf("install Cluster API's components: %v", err)
			}
			if withNeighbour {
				tl := newTimeline()
				addBrokenNeighbour(ctx, t, m, tl)
				t.Logf("the neighbour:\n%s", tl)
			}
			result := capiflow.Run(ctx, t, m, capiflow.Options{Manager: coreImage + " as Pods, " + name, Client: m.Client(), BinDir: binDir})
			if withNeighbour {
				checkNeighbourStillBroken(ctx, t, m)
			}
			t.Log(result.Summary())
			steps[withNeighbour] = result.Steps
		})
	}
	if t.Failed() {
		return
	}
	for _, step := range []string{"create", "upgrade", "scale", "delete"} {
		without, with := steps[false][step], steps[true][step]
		t.Logf("%s: %s without the neighbour, %s with it (%+.1f%%)", step, without, with, 100*(with.Seconds()/without.Seconds()-1))
		if with.Seconds() > without.Seconds()*(1+neighbourSlack) {
			t.Errorf("%s took %s with the broken neighbour, more than %.0f%% over %s without it", step, with, 100*neighbourSlack, without)
		}
	}
}
