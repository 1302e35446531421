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
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capiflow"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capinode"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/node"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/ociimage"
)

// Cluster API's own provisioning flow with every manager as a Pod, as
// Cluster API's release deploys them (package capinode; cert-manager is
// the one stand-in): the drop-in's Deployment at two replicas, its leading
// Pod deleted with grace period 0 before the upgrade, its image swapped to
// Cluster API's own manager before the control plane scales and back to
// the drop-in before the delete. Every step must pass as it does with
// processes, and no manager's log may hold a request its RBAC refused.
func TestInside_ClusterAPIsFlowWithEveryManagerAsAPod(t *testing.T) {
	n := inside(t)
	binDir, err := toolbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()

	// By hand, two knobs run the flow otherwise: RSC_NODE_E2E_VARIABLES
	// turns on every feature gate Cluster API's e2e turns on (in-place
	// updates among them), and RSC_NODE_CORE=capi or =drop-in runs one core
	// manager throughout, with no swap, for a side-by-side measurement.
	var vars map[string]string
	if os.Getenv("RSC_NODE_E2E_VARIABLES") != "" {
		if vars, err = capimanagement.E2EVariables(binDir); err != nil {
			t.Fatal(err)
		}
	}
	coreImage, swap := coreUnderTest(t)
	requireNoClusterAPI(ctx, t, n)
	began := time.Now()
	m, err := capinode.Install(ctx, capinode.Options{
		BinDir: binDir, Config: n.Config(), CoreImage: coreImage, CoreReplicas: 2, Variables: vars, Progress: logWriter{t},
	})
	if m != nil {
		t.Cleanup(m.Close)
	}
	removeWhenDone(t, n)
	if err != nil {
		t.Fatalf("install Cluster API's components: %v", err)
	}
	t.Logf("Cluster API's components installed and rolled out in %.1fs", time.Since(began).Seconds())
	if coreImage == capinode.DropInImage {
		checkDropInImage(ctx, t, n, m)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, comp := range capinode.Components {
				t.Logf("%s log (last 30 lines):\n%s", comp.Name, m.LogTail(context.Background(), comp, 30))
			}
		}
	})

	usage := &usageSampler{m: m, node: nodeName}
	stopSampling := usage.start(ctx, 5*time.Second)
	result := capiflow.Run(ctx, t, m, capiflow.Options{
		Manager: coreImage + " as Pods", Client: m.Client(), BinDir: binDir,
		Before: func(step string) {
			checkForbidden(ctx, t, m, "before "+step)
			switch step {
			case "upgrade":
				old, err := m.Leader(ctx)
				if err != nil {
					t.Fatal(err)
				}
				next, took, err := m.DeleteLeader(ctx)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("leader %s deleted with grace period 0; %s leads %.1fs later", old, next, took.Seconds())
			case "scale":
				swapImage(ctx, t, m, swap, capinode.ClusterAPICoreImage, "Cluster API's own")
			case "delete":
				swapImage(ctx, t, m, swap, capinode.DropInImage, "the drop-in")
			}
		},
	})
	checkForbidden(ctx, t, m, "at the end")
	stopSampling()
	t.Log(result.Summary())
	t.Log(usage.report())
}

// coreEnv, by hand, runs one core manager throughout: capi for Cluster
// API's own, drop-in for ours.
const coreEnv = "RSC_NODE_CORE"

// coreUnderTest is the core manager's image RSC_NODE_CORE picks (the
// drop-in unless it says capi), and whether the flow swaps images (only
// when it is unset).
func coreUnderTest(t *testing.T) (image string, swap bool) {
	t.Helper()
	switch core := os.Getenv(coreEnv); core {
	case "":
		return capinode.DropInImage, true
	case "capi":
		return capinode.ClusterAPICoreImage, false
	case "drop-in":
		return capinode.DropInImage, false
	default:
		t.Fatalf("%s=%q: want capi or drop-in", coreEnv, core)
		return "", false
	}
}

// checkDropInImage checks that containerd holds the drop-in as make
// node-images wrote it, the release's multi-arch image index, and that
// every core Pod runs the index's image for the node's platform.
func checkDropInImage(ctx context.Context, t *testing.T, n *node.Node, m *capinode.Management) {
	t.Helper()
	archive := filepath.Join(os.Getenv(imagesEnv), "core-manager.tar")
	written, err := ociimage.ReadIndexArchive(archive)
	if err != nil {
		t.Fatal(err)
	}
	held, err := n.Image(capinode.DropInImage)
	if err != nil {
		t.Fatal(err)
	}
	if held.MediaType != string(types.OCIImageIndex) || held.Digest != written.Digest.String() {
		t.Errorf("containerd holds %s as %s %s, want the image index %s of %s", capinode.DropInImage, held.MediaType, held.Digest, written.Digest, archive)
	}
	if len(held.Platforms) != len(written.Images) {
		t.Errorf("containerd's index lists %v, the archive's %d platforms", held.Platforms, len(written.Images))
	}
	want, ok := written.Image(node.Platform)
	if !ok {
		t.Fatalf("%s has no %s image", archive, node.Platform)
	}
	ids, err := m.ImageIDs(ctx, capinode.Core)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) == 0 {
		t.Error("no core Pod reports an image")
	}
	for pod, id := range ids {
		// containerd reports an image imported by name alone by its
		// config's digest (no repo digest), as kubelet passes it on.
		if id != want.Config.String() {
			t.Errorf("Pod %s runs image %q, want the %s image of the index, config %s", pod, id, node.Platform, want.Config)
		}
	}
	t.Logf("%s is the image index %s of %d platforms; the core Pods run its %s image (config %s)",
		capinode.DropInImage, held.Digest, len(held.Platforms), node.Platform, want.Config)
}

// checkForbidden fails the test for every request a manager's log says
// its RBAC refused.
func checkForbidden(ctx context.Context, t *testing.T, m *capinode.Management, when string) {
	t.Helper()
	lines, err := m.Forbidden(ctx)
	if err != nil {
		t.Errorf("read the managers' logs %s: %v", when, err)
	}
	for _, line := range lines {
		t.Errorf("forbidden %s: %s", when, line)
	}
}

// swapImage swaps the core Deployment's image on the live cluster, when
// the run swaps, and logs how long the rollout took.
func swapImage(ctx context.Context, t *testing.T, m *capinode.Management, swap bool, image, what string) {
	t.Helper()
	if !swap {
		return
	}
	began := time.Now()
	if err := m.SetCoreImage(ctx, image); err != nil {
		t.Fatal(err)
	}
	t.Logf("core image swapped to %s (%s), rolled out in %.1fs", what, image, time.Since(began).Seconds())
}

// logWriter sends progress lines to the test log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// usageSampler keeps, for each core manager Pod, its last CPU time and its
// largest memory working set, as kubelet reports them.
type usageSampler struct {
	m    *capinode.Management
	node string
	mu   sync.Mutex
	pods map[string]capinode.PodUsage
	seen map[string][2]time.Time
}

func (s *usageSampler) start(ctx context.Context, every time.Duration) (stop func()) {
	s.pods, s.seen = map[string]capinode.PodUsage{}, map[string][2]time.Time{}
	s.sample(ctx)
	stopSampling := polltest.Every(ctx, every, s.sample)
	return func() { stopSampling(); s.sample(context.Background()) }
}

func (s *usageSampler) sample(ctx context.Context) {
	now, err := s.m.CoreUsage(ctx, s.node)
	if err != nil {
		return // a sample missed while a Pod starts is not a failure
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for pod, u := range now {
		if u.CPUSeconds == 0 && u.WorkingSetBytes == 0 {
			continue
		}
		kept := s.pods[pod]
		kept.Image = u.Image
		kept.CPUSeconds = max(kept.CPUSeconds, u.CPUSeconds)
		kept.WorkingSetBytes = max(kept.WorkingSetBytes, u.WorkingSetBytes)
		s.pods[pod] = kept
		seen := s.seen[pod]
		if seen[0].IsZero() {
			seen[0] = time.Now()
		}
		seen[1] = time.Now()
		s.seen[pod] = seen
	}
}

func (s *usageSampler) report() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.pods))
	for pod := range s.pods {
		names = append(names, pod)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("core manager Pods, as kubelet reports them (CPU time of the container, largest working set seen, time sampled):\n")
	for _, pod := range names {
		u, seen := s.pods[pod], s.seen[pod]
		fmt.Fprintf(&b, "  %s (%s): %.1f s CPU, %.1f MiB, sampled over %.0f s\n", pod, u.Image, u.CPUSeconds, u.WorkingSetBytes/(1<<20), seen[1].Sub(seen[0]).Seconds())
	}
	return b.String()
}
