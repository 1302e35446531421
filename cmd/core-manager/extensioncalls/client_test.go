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

package extensioncalls

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	runtimeclient "sigs.k8s.io/cluster-api/exp/runtime/client"
	"sigs.k8s.io/cluster-api/util/cache"

	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/apiservertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextensiontest"
)

var env *apiservertest.Env

func TestMain(m *testing.M) { os.Exit(apiservertest.Run(m, &env)) }

// rig is one real HTTPS extension registered as an ExtensionConfig named
// config, and our client behind Cluster API's interface.
type rig struct {
	client    *Client
	extension *sampleextension.Running
	config    *runtimev1.ExtensionConfig
}

func newRig(t *testing.T, selector *metav1.LabelSelector, policy runtimehooksv1.FailurePolicy) *rig {
	t.Helper()
	env.Skip(t)
	handlers := sampleextension.DefaultHandlers()
	for i := range handlers {
		handlers[i].FailurePolicy = ptr.To(policy)
	}
	ext := sampleextensiontest.Start(t, sampleextension.Options{
		Handlers:  handlers,
		Variables: map[string][]clusterv1.ClusterClassVariable{sampleextension.DiscoverVariablesHandler: {{Name: "size", Required: ptr.To(false)}}},
	})
	calls, err := rtclient.New(rtclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := New(calls, registry.New(), env.Client, nil)
	config := &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "sizing"},
		Spec: runtimev1.ExtensionConfigSpec{
			ClientConfig:      runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA},
			NamespaceSelector: selector,
		},
	}
	discovered, err := c.Discover(context.Background(), config)
	if err != nil {
		t.Fatal(err)
	}
	return &rig{client: c, extension: ext, config: discovered}
}

func classIn(namespace string) *clusterv1.ClusterClass {
	return &clusterv1.ClusterClass{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "cc"}}
}

func TestClient_BeforeWarmUpCallersSeeClusterAPIsNotReadyErrors(t *testing.T) {
	r := newRig(t, &metav1.LabelSelector{}, runtimehooksv1.FailurePolicyFail)
	ctx := context.Background()
	if r.client.IsReady() {
		t.Fatal("ready before WarmUp")
	}
	err := r.client.CallExtension(ctx, runtimehooksv1.DiscoverVariables, classIn("default"), "discover-variables.sizing",
		&runtimehooksv1.DiscoverVariablesRequest{}, &runtimehooksv1.DiscoverVariablesResponse{})
	want := `failed to call extension handler "discover-variables.sizing": failed to get extension handler "discover-variables.sizing" from registry: invalid operation: Get cannot be called on a registry not yet ready: ` + registry.ErrNotCurrent.Error()
	if err == nil || err.Error() != want {
		t.Errorf("CallExtension before WarmUp: %v, want %s", err, want)
	}
	_, err = r.client.GetAllExtensions(ctx, runtimehooksv1.GeneratePatches, classIn("default"))
	if err == nil || !strings.Contains(err.Error(), "invalid operation: List cannot be called on a registry which has not been warmed up") {
		t.Errorf("GetAllExtensions before WarmUp: %v", err)
	}
	if err := r.client.Register(r.config); err == nil || !strings.Contains(err.Error(), "Add cannot be called on a registry which has not been warmed up") {
		t.Errorf("Register before WarmUp: %v", err)
	}
	if err := r.client.WarmUp(&runtimev1.ExtensionConfigList{Items: []runtimev1.ExtensionConfig{*r.config}}); err != nil {
		t.Fatal(err)
	}
	if err := r.client.WarmUp(&runtimev1.ExtensionConfigList{}); err == nil || !strings.Contains(err.Error(), "already been warmed up") {
		t.Errorf("a second WarmUp: %v", err)
	}
}

func TestClient_CallsOnlyHandlersWhoseSelectorAdmitsTheNamespace(t *testing.T) {
	admitted := env.Namespace(t, map[string]string{"tier": "a"})
	refused := env.Namespace(t, map[string]string{"tier": "b"})
	r := newRig(t, &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "a"}}, runtimehooksv1.FailurePolicyFail)
	ctx := context.Background()
	if err := r.client.WarmUp(&runtimev1.ExtensionConfigList{Items: []runtimev1.ExtensionConfig{*r.config}}); err != nil {
		t.Fatal(err)
	}
	names, err := r.client.GetAllExtensions(ctx, runtimehooksv1.GeneratePatches, classIn(admitted))
	if err != nil || len(names) != 1 || names[0] != "generate-patches.sizing" {
		t.Errorf("handlers for an admitted namespace: %v (%v), want [generate-patches.sizing]", names, err)
	}
	if names, err := r.client.GetAllExtensions(ctx, runtimehooksv1.GeneratePatches, classIn(refused)); err != nil || len(names) != 0 {
		t.Errorf("handlers for a refused namespace: %v (%v), want none", names, err)
	}

	response := &runtimehooksv1.DiscoverVariablesResponse{}
	if err := r.client.CallExtension(ctx, runtimehooksv1.DiscoverVariables, classIn(admitted), "discover-variables.sizing",
		&runtimehooksv1.DiscoverVariablesRequest{}, response); err != nil {
		t.Fatal(err)
	}
	if len(response.Variables) != 1 || response.Variables[0].Name != "size" {
		t.Errorf("answer %+v, want the variable size", response.Variables)
	}
	err = r.client.CallExtension(ctx, runtimehooksv1.DiscoverVariables, classIn(refused), "discover-variables.sizing",
		&runtimehooksv1.DiscoverVariablesRequest{}, &runtimehooksv1.DiscoverVariablesResponse{})
	want := `failed to call extension handler "discover-variables.sizing": namespaceSelector did not match object ` + refused + "/cc"
	if err == nil || err.Error() != want {
		t.Errorf("a refused namespace: %v, want %s", err, want)
	}
	if got := r.extension.Server.Calls()["DiscoverVariables/"+sampleextension.DiscoverVariablesHandler]; got != 1 {
		t.Errorf("the extension served %d DiscoverVariables calls, want 1: a refused namespace is never called", got)
	}
}

func TestClient_FailurePolicyAppliesToCallsThatGetNoAnswerOnly(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		policy  runtimehooksv1.FailurePolicy
		faults  sampleextension.Faults
		wantErr string
	}{
		{runtimehooksv1.FailurePolicyIgnore, sampleextension.Faults{ErrorRate: 1}, ""},
		{runtimehooksv1.FailurePolicyFail, sampleextension.Faults{ErrorRate: 1}, `failed to call extension handler "generate-patches.sizing": `},
		{runtimehooksv1.FailurePolicyIgnore, sampleextension.Faults{FailureRate: 1}, `failed to call extension handler "generate-patches.sizing": got failure response with message: `},
	} {
		r := newRig(t, &metav1.LabelSelector{}, tc.policy)
		if err := r.client.WarmUp(&runtimev1.ExtensionConfigList{Items: []runtimev1.ExtensionConfig{*r.config}}); err != nil {
			t.Fatal(err)
		}
		r.extension.Server.SetFaults("", tc.faults)
		response := &runtimehooksv1.GeneratePatchesResponse{}
		err := r.client.CallExtension(ctx, runtimehooksv1.GeneratePatches, classIn("default"), "generate-patches.sizing",
			&runtimehooksv1.GeneratePatchesRequest{}, response)
		switch {
		case tc.wantErr == "" && (err != nil || response.GetStatus() != runtimehooksv1.ResponseStatusSuccess):
			t.Errorf("policy %s, faults %+v: %v, status %q; want a success answer", tc.policy, tc.faults, err, response.GetStatus())
		case tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)):
			t.Errorf("policy %s, faults %+v: %v, want an error starting %q", tc.policy, tc.faults, err, tc.wantErr)
		}
	}
}

func TestClient_CachedAnswersCostNoCall(t *testing.T) {
	r := newRig(t, &metav1.LabelSelector{}, runtimehooksv1.FailurePolicyFail)
	ctx := context.Background()
	if err := r.client.WarmUp(&runtimev1.ExtensionConfigList{Items: []runtimev1.ExtensionConfig{*r.config}}); err != nil {
		t.Fatal(err)
	}
	caching := runtimeclient.WithCaching{
		Cache: cache.New[runtimeclient.CallExtensionCacheEntry](t.Context(), cache.DefaultTTL),
		CacheKeyFunc: func(name, version string, _ runtimehooksv1.RequestObject) string {
			return name + "/" + version
		},
	}
	for range 3 {
		response := &runtimehooksv1.DiscoverVariablesResponse{}
		if err := r.client.CallExtension(ctx, runtimehooksv1.DiscoverVariables, classIn("default"), "discover-variables.sizing",
			&runtimehooksv1.DiscoverVariablesRequest{}, response, caching); err != nil {
			t.Fatal(err)
		}
		if len(response.Variables) != 1 {
			t.Fatalf("answer %+v, want the variable size", response.Variables)
		}
	}
	if got := r.extension.Server.Calls()["DiscoverVariables/"+sampleextension.DiscoverVariablesHandler]; got != 1 {
		t.Errorf("3 cached calls reached the extension %d times, want 1", got)
	}
}

func TestClient_CallAllExtensionsAggregatesEveryAdmittedHandler(t *testing.T) {
	r := newRig(t, &metav1.LabelSelector{}, runtimehooksv1.FailurePolicyFail)
	ctx := context.Background()
	if err := r.client.WarmUp(&runtimev1.ExtensionConfigList{Items: []runtimev1.ExtensionConfig{*r.config}}); err != nil {
		t.Fatal(err)
	}
	response := &runtimehooksv1.GeneratePatchesResponse{}
	if err := r.client.CallAllExtensions(ctx, runtimehooksv1.GeneratePatches, classIn("default"), &runtimehooksv1.GeneratePatchesRequest{}, response); err != nil {
		t.Fatal(err)
	}
	if response.GetStatus() != runtimehooksv1.ResponseStatusSuccess {
		t.Errorf("aggregated status %q, want Success", response.GetStatus())
	}
	if got := r.extension.Server.Calls()["GeneratePatches/"+sampleextension.GeneratePatchesHandler]; got != 1 {
		t.Errorf("GeneratePatches served %d calls, want 1", got)
	}
}

// A standby warms its registry up at start and later leads. Until it has
// rebuilt the registry from the ExtensionConfigs as they are then, a
// config created meanwhile is missing from it, and a blocking hook with no
// handler would aggregate to Success: every call fails instead, naming
// why, so that Cluster API's reconciler retries.
func TestClient_AStandbysWarmRegistryAnswersNoCallUntilRebuiltAsLeader(t *testing.T) {
	env.Skip(t)
	calls, err := rtclient.New(rtclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	// What warm-up leaves on a standby: ready, holding what it listed at
	// start, here nothing.
	reg.Gate().Open(registry.WarmedUp)
	c := New(calls, reg, env.Client, nil)
	ctx := context.Background()
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c"}}
	callBeforeClusterCreate := func() error {
		return c.CallAllExtensions(ctx, runtimehooksv1.BeforeClusterCreate, cluster,
			&runtimehooksv1.BeforeClusterCreateRequest{Cluster: *cluster}, &runtimehooksv1.BeforeClusterCreateResponse{})
	}

	if c.IsReady() {
		t.Error("IsReady before the rebuild as leader")
	}
	if err := callBeforeClusterCreate(); !errors.Is(err, registry.ErrNotCurrent) {
		t.Errorf("BeforeClusterCreate from a standby's registry: %v, want an error wrapping %q", err, registry.ErrNotCurrent)
	}
	refused := errors.New(`extensionconfigs.runtime.cluster.x-k8s.io is forbidden: User "core-manager" cannot list resource "extensionconfigs"`)
	reg.Gate().ListFailed(refused)
	if err := callBeforeClusterCreate(); !errors.Is(err, refused) {
		t.Errorf("BeforeClusterCreate while the leader's list is refused: %v, want it to name the refusal", err)
	}
	if _, err := c.GetAllExtensions(ctx, runtimehooksv1.GeneratePatches, classIn("default")); !errors.Is(err, refused) {
		t.Errorf("GetAllExtensions while the leader's list is refused: %v, want it to name the refusal", err)
	}

	reg.Gate().Open(registry.Rebuilt)
	if !c.IsReady() {
		t.Error("not IsReady after the rebuild as leader")
	}
	if err := callBeforeClusterCreate(); err != nil {
		t.Errorf("BeforeClusterCreate with no handler once current: %v, want Success", err)
	}
}
