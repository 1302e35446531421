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

package conformance_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/cluster-api/exp/runtime/server"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/cmd/core-manager/extensioncalls"
	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/topologyresponses"
)

// topologyExtension is a Cluster API server library extension whose
// GeneratePatches answer depends on each item's holder and the settings,
// as a real one's does, and counts the calls each handler gets.
type topologyExtension struct {
	patches, validations, strays, failures atomic.Int64
}

func (e *topologyExtension) generatePatches(_ context.Context, req *runtimehooksv1.GeneratePatchesRequest, resp *runtimehooksv1.GeneratePatchesResponse) {
	e.patches.Add(1)
	resp.SetStatus(runtimehooksv1.ResponseStatusSuccess)
	for _, item := range req.Items {
		resp.Items = append(resp.Items, runtimehooksv1.GeneratePatchesResponseItem{
			UID: item.UID, PatchType: runtimehooksv1.JSONPatchType,
			Patch: []byte(`[{"op":"add","path":"/spec/for","value":"` + item.HolderReference.Name + `-` + req.Settings["size"] + `"}]`),
		})
	}
}

// strayPatch answers a patch for a uid the request does not hold.
func (e *topologyExtension) strayPatch(_ context.Context, _ *runtimehooksv1.GeneratePatchesRequest, resp *runtimehooksv1.GeneratePatchesResponse) {
	e.strays.Add(1)
	resp.SetStatus(runtimehooksv1.ResponseStatusSuccess)
	resp.Items = []runtimehooksv1.GeneratePatchesResponseItem{{UID: "not-in-the-request", PatchType: runtimehooksv1.JSONPatchType, Patch: []byte(`[]`)}}
}

func (e *topologyExtension) failing(_ context.Context, _ *runtimehooksv1.GeneratePatchesRequest, resp *runtimehooksv1.GeneratePatchesResponse) {
	e.failures.Add(1)
	resp.SetStatus(runtimehooksv1.ResponseStatusFailure)
	resp.SetMessage("the network is not ready")
}

func (e *topologyExtension) validateTopology(_ context.Context, _ *runtimehooksv1.ValidateTopologyRequest, resp *runtimehooksv1.ValidateTopologyResponse) {
	e.validations.Add(1)
	resp.SetStatus(runtimehooksv1.ResponseStatusSuccess)
	resp.SetMessage("valid")
}

// topologyRequest is what Cluster API's topology controller sends for a
// Cluster with the given MachineDeployments: a fresh uid per item on every
// call, in the order of a Go map.
func topologyRequest(r *rand.Rand, size string, machineDeployments ...string) *runtimehooksv1.GeneratePatchesRequest {
	req := &runtimehooksv1.GeneratePatchesRequest{}
	req.Settings = map[string]string{"size": size}
	for _, md := range machineDeployments {
		req.Items = append(req.Items, runtimehooksv1.GeneratePatchesRequestItem{
			UID:             types.UID(fmt.Sprintf("%s-%d", md, r.Int())),
			HolderReference: runtimehooksv1.HolderReference{APIVersion: clusterv1.GroupVersion.String(), Kind: "MachineDeployment", Namespace: "default", Name: md, FieldPath: "spec.template.spec.infrastructureRef"},
			Object:          runtime.RawExtension{Raw: []byte(`{"kind":"DevMachineTemplate","spec":{"template":{}}}`)},
		})
	}
	r.Shuffle(len(req.Items), func(i, j int) { req.Items[i], req.Items[j] = req.Items[j], req.Items[i] })
	return req
}

// byUID lists an answer's patches as uid=patch, sorted.
func byUID(resp *runtimehooksv1.GeneratePatchesResponse) string {
	var out []string
	for _, item := range resp.Items {
		out = append(out, string(item.UID)+"="+string(item.Patch))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func TestResponseCache_AnswersServerLibraryRepeatsOnceAndAsTheExtensionWould(t *testing.T) {
	ext := &topologyExtension{}
	url, ca := startServerLibrary(t,
		server.ExtensionHandler{Hook: runtimehooksv1.GeneratePatches, Name: "patches", HandlerFunc: ext.generatePatches},
		server.ExtensionHandler{Hook: runtimehooksv1.GeneratePatches, Name: "stray", HandlerFunc: ext.strayPatch},
		server.ExtensionHandler{Hook: runtimehooksv1.GeneratePatches, Name: "failing", HandlerFunc: ext.failing},
		server.ExtensionHandler{Hook: runtimehooksv1.ValidateTopology, Name: "validate", HandlerFunc: ext.validateTopology},
	)
	calls, err := rtclient.New(rtclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	responses := topologyresponses.New(topologyresponses.Options{})
	cached := extensioncalls.New(calls, registry.New(), nil, responses)
	// The same extension, never cached: what it answers each request.
	direct := extensioncalls.New(calls, registry.New(), nil, nil)
	var configs []runtimev1.ExtensionConfig
	for _, name := range []string{"opted-in", "not-opted-in"} {
		discovered, err := cached.Discover(ctx, &runtimev1.ExtensionConfig{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       runtimev1.ExtensionConfigSpec{ClientConfig: runtimev1.ClientConfig{URL: url, CABundle: ca}, NamespaceSelector: &metav1.LabelSelector{}},
		})
		if err != nil {
			t.Fatal(err)
		}
		configs = append(configs, *discovered)
	}
	for _, c := range []*extensioncalls.Client{cached, direct} {
		if err := c.WarmUp(&runtimev1.ExtensionConfigList{Items: configs}); err != nil {
			t.Fatal(err)
		}
	}
	responses.SetMaxAge("opted-in", time.Hour)
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c1"}}
	r := rand.New(rand.NewPCG(1, 1))
	generate := func(c *extensioncalls.Client, handler string, req *runtimehooksv1.GeneratePatchesRequest) (*runtimehooksv1.GeneratePatchesResponse, error) {
		resp := &runtimehooksv1.GeneratePatchesResponse{}
		return resp, c.CallExtension(ctx, runtimehooksv1.GeneratePatches, cluster, handler, req, resp)
	}

	t.Run("a repeat is answered from memory, its patches on the new uids", func(t *testing.T) {
		before := ext.patches.Load()
		if _, err := generate(cached, "patches.opted-in", topologyRequest(r, "small", "md-a", "md-b", "md-c")); err != nil {
			t.Fatal(err)
		}
		for range 5 {
			again := topologyRequest(r, "small", "md-a", "md-b", "md-c")
			got, err := generate(cached, "patches.opted-in", again)
			if err != nil {
				t.Fatal(err)
			}
			if n := ext.patches.Load() - before; n != 1 {
				t.Fatalf("%d GeneratePatches calls for one distinct request, want 1", n)
			}
			want, err := generate(direct, "patches.opted-in", again)
			if err != nil {
				t.Fatal(err)
			}
			before++ // the direct call
			if byUID(got) != byUID(want) {
				t.Fatalf("answered from memory:\n%s\nthe extension answers:\n%s", byUID(got), byUID(want))
			}
			// Cluster API applies and may change what it is given.
			got.Items[0].Patch = []byte(`[]`)
		}
	})

	t.Run("other settings are another request", func(t *testing.T) {
		before := ext.patches.Load()
		got, err := generate(cached, "patches.opted-in", topologyRequest(r, "large", "md-a", "md-b", "md-c"))
		if err != nil {
			t.Fatal(err)
		}
		if n := ext.patches.Load() - before; n != 1 || !strings.Contains(byUID(got), "md-a-large") {
			t.Errorf("%d calls, answer %s; want one call answering for size large", n, byUID(got))
		}
	})

	t.Run("a config that did not opt in is always called", func(t *testing.T) {
		before := ext.patches.Load()
		for range 3 {
			if _, err := generate(cached, "patches.not-opted-in", topologyRequest(r, "small", "md-a")); err != nil {
				t.Fatal(err)
			}
		}
		if n := ext.patches.Load() - before; n != 3 {
			t.Errorf("%d calls for 3, want 3", n)
		}
	})

	t.Run("an answer naming a uid not in the request reaches Cluster API as it came and is never kept", func(t *testing.T) {
		before := ext.strays.Load()
		for range 3 {
			got, err := generate(cached, "stray.opted-in", topologyRequest(r, "small", "md-a"))
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Items) != 1 || got.Items[0].UID != "not-in-the-request" {
				t.Fatalf("answer %s, want the stray patch as the extension wrote it", byUID(got))
			}
		}
		if n := ext.strays.Load() - before; n != 3 {
			t.Errorf("%d calls for 3, want 3", n)
		}
	})

	t.Run("a Failure is never kept", func(t *testing.T) {
		before := ext.failures.Load()
		for range 3 {
			if _, err := generate(cached, "failing.opted-in", topologyRequest(r, "small", "md-a")); err == nil || !strings.Contains(err.Error(), "got failure response") {
				t.Fatalf("error %v, want Cluster API's failure response error", err)
			}
		}
		if n := ext.failures.Load() - before; n != 3 {
			t.Errorf("%d calls for 3, want 3", n)
		}
	})

	t.Run("ValidateTopology", func(t *testing.T) {
		before := ext.validations.Load()
		for range 3 {
			req := &runtimehooksv1.ValidateTopologyRequest{Items: []*runtimehooksv1.ValidateTopologyRequestItem{
				{HolderReference: runtimehooksv1.HolderReference{Kind: "Cluster", Name: "c1"}, Object: runtime.RawExtension{Raw: []byte(`{"spec":{}}`)}},
			}}
			resp := &runtimehooksv1.ValidateTopologyResponse{}
			if err := cached.CallExtension(ctx, runtimehooksv1.ValidateTopology, cluster, "validate.opted-in", req, resp); err != nil {
				t.Fatal(err)
			}
			if resp.Status != runtimehooksv1.ResponseStatusSuccess || resp.Message != "valid" {
				t.Fatalf("answer %+v", resp)
			}
		}
		if n := ext.validations.Load() - before; n != 1 {
			t.Errorf("%d ValidateTopology calls for one distinct request, want 1", n)
		}
	})
}
