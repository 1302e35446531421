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

package sampleextension_test

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

func TestDefaultHandlers_AdvertiseTheTopologyHooksWithTimeoutTenAndPolicyFail(t *testing.T) {
	want := []runtimehooksv1.ExtensionHandler{
		{
			Name:           "discover-variables",
			RequestHook:    runtimehooksv1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "DiscoverVariables"},
			TimeoutSeconds: ptr.To[int32](10),
			FailurePolicy:  ptr.To(runtimehooksv1.FailurePolicyFail),
		},
		{
			Name:           "generate-patches",
			RequestHook:    runtimehooksv1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "GeneratePatches"},
			TimeoutSeconds: ptr.To[int32](10),
			FailurePolicy:  ptr.To(runtimehooksv1.FailurePolicyFail),
		},
		{
			Name:           "validate-topology",
			RequestHook:    runtimehooksv1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "ValidateTopology"},
			TimeoutSeconds: ptr.To[int32](10),
			FailurePolicy:  ptr.To(runtimehooksv1.FailurePolicyFail),
		},
	}
	if got := sampleextension.DefaultHandlers(); !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("DefaultHandlers() = %+v, want %+v", got, want)
	}
}

func TestHandlerPath_MatchesClusterAPICatalogPaths(t *testing.T) {
	cat := runtimecatalog.New()
	if err := runtimehooksv1.AddToCatalog(cat); err != nil {
		t.Fatal(err)
	}
	discovery, err := cat.GroupVersionHook(runtimehooksv1.Discovery)
	if err != nil {
		t.Fatal(err)
	}
	if got := runtimecatalog.GVHToPath(discovery, ""); got != sampleextension.DiscoveryPath {
		t.Errorf("catalog's Discovery path is %q, DiscoveryPath is %q", got, sampleextension.DiscoveryPath)
	}

	wantPaths := map[string]string{
		"discover-variables": discoverVariablesPath,
		"generate-patches":   generatePatchesPath,
		"validate-topology":  validateTopologyPath,
	}
	for _, h := range sampleextension.DefaultHandlers() {
		got, err := sampleextension.HandlerPath(h)
		if err != nil {
			t.Fatalf("HandlerPath(%s): %v", h.Name, err)
		}
		if got != wantPaths[h.Name] {
			t.Errorf("HandlerPath(%s) = %q, want %q", h.Name, got, wantPaths[h.Name])
		}
	}

	if _, err := sampleextension.HandlerPath(runtimehooksv1.ExtensionHandler{
		Name: "x", RequestHook: runtimehooksv1.GroupVersionHook{APIVersion: "a/b/c", Hook: "DiscoverVariables"},
	}); err == nil {
		t.Error("HandlerPath accepted the apiVersion a/b/c")
	}
}

func TestServer_DiscoveryListsDefaultHandlers(t *testing.T) {
	url, client := extension(t, sampleextension.New(sampleextension.Options{}))

	resp := callHook(t, client, url, discoveryPath)
	if resp.status != http.StatusOK || resp.contentType != "application/json" {
		t.Fatalf("HTTP %d (%s), want 200 (application/json): %s", resp.status, resp.contentType, resp.body)
	}
	got := decode[runtimehooksv1.DiscoveryResponse](t, resp)
	if got.APIVersion != hooksAPIVersion || got.Kind != "DiscoveryResponse" || got.Status != runtimehooksv1.ResponseStatusSuccess {
		t.Errorf("apiVersion %q, kind %q, status %q; want %q, DiscoveryResponse, Success", got.APIVersion, got.Kind, got.Status, hooksAPIVersion)
	}
	if !apiequality.Semantic.DeepEqual(got.Handlers, sampleextension.DefaultHandlers()) {
		t.Errorf("handlers %+v, want DefaultHandlers()", got.Handlers)
	}
}

func TestServer_TopologyHooksAnswerSuccessOfTheirKind(t *testing.T) {
	url, client := extension(t, sampleextension.New(sampleextension.Options{}))

	tests := []struct {
		path     string
		wantKind string
	}{
		{path: discoverVariablesPath, wantKind: "DiscoverVariablesResponse"},
		{path: generatePatchesPath, wantKind: "GeneratePatchesResponse"},
		{path: validateTopologyPath, wantKind: "ValidateTopologyResponse"},
	}
	for _, tt := range tests {
		t.Run(tt.wantKind, func(t *testing.T) {
			resp := callHook(t, client, url, tt.path)
			if resp.status != http.StatusOK {
				t.Fatalf("HTTP %d: %s", resp.status, resp.body)
			}
			// Decode loosely so that any field beyond the common ones shows up.
			got := decode[map[string]any](t, resp)
			want := map[string]any{"apiVersion": hooksAPIVersion, "kind": tt.wantKind, "status": "Success"}
			if !maps.Equal(got, want) {
				t.Errorf("response %v, want %v", got, want)
			}
		})
	}
}

func TestServer_DiscoverVariablesReturnsTheVariablesOfTheCalledHandler(t *testing.T) {
	dv := func(name string) runtimehooksv1.ExtensionHandler {
		return runtimehooksv1.ExtensionHandler{
			Name:        name,
			RequestHook: runtimehooksv1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "DiscoverVariables"},
		}
	}
	s := sampleextension.New(sampleextension.Options{
		Handlers:  []runtimehooksv1.ExtensionHandler{dv("dv-a"), dv("dv-b")},
		Variables: map[string][]clusterv1.ClusterClassVariable{"dv-a": stringVariables("region", "flavor")},
	})
	url, client := extension(t, s)
	pathA := "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovervariables/dv-a"
	pathB := "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovervariables/dv-b"

	variablesAt := func(t *testing.T, path string) []clusterv1.ClusterClassVariable {
		t.Helper()
		resp, err := post(client, url, path, hookRequest(t, "DiscoverVariablesRequest"))
		if err != nil {
			t.Fatal(err)
		}
		got := decode[runtimehooksv1.DiscoverVariablesResponse](t, resp)
		if resp.status != http.StatusOK || got.Kind != "DiscoverVariablesResponse" || got.Status != runtimehooksv1.ResponseStatusSuccess {
			t.Fatalf("HTTP %d, kind %q, status %q, want 200, DiscoverVariablesResponse, Success", resp.status, got.Kind, got.Status)
		}
		return got.Variables
	}

	tests := []struct {
		name  string
		setup func()
		path  string
		want  []clusterv1.ClusterClassVariable
	}{
		{name: "configured in Options", path: pathA, want: stringVariables("region", "flavor")},
		{name: "none configured", path: pathB, want: nil},
		{name: "set at runtime", setup: func() { s.SetVariables("dv-b", stringVariables("zone")) }, path: pathB, want: stringVariables("zone")},
		{name: "removed at runtime", setup: func() { s.SetVariables("dv-a", nil) }, path: pathA, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				tt.setup()
			}
			if got := variablesAt(t, tt.path); !apiequality.Semantic.DeepEqual(got, tt.want) {
				t.Errorf("variables %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestServer_SetVariablesKeepsNoReferenceToTheCallersSlice(t *testing.T) {
	s := sampleextension.New(sampleextension.Options{})
	url, client := extension(t, s)
	vars := stringVariables("region")
	s.SetVariables("discover-variables", vars)
	vars[0].Name = "changed-after-set"

	got := decode[runtimehooksv1.DiscoverVariablesResponse](t, callHook(t, client, url, discoverVariablesPath))
	if len(got.Variables) != 1 || got.Variables[0].Name != "region" {
		t.Errorf("variables %+v, want the one named region", got.Variables)
	}
}

func TestServer_SetHandlersChangesDiscoveryAndWhatIsAnswered(t *testing.T) {
	s := sampleextension.New(sampleextension.Options{})
	url, client := extension(t, s)

	// Handlers a controller must reject; the Server advertises them anyway.
	lies := []runtimehooksv1.ExtensionHandler{
		{
			Name:           "with.dot",
			RequestHook:    runtimehooksv1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "DiscoverVariables"},
			TimeoutSeconds: ptr.To[int32](31),
			FailurePolicy:  ptr.To(runtimehooksv1.FailurePolicy("Sometimes")),
		},
		{Name: "unknown-hook", RequestHook: runtimehooksv1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "NoSuchHook"}},
		{Name: "bad-version", RequestHook: runtimehooksv1.GroupVersionHook{APIVersion: "a/b/c", Hook: "DiscoverVariables"}},
	}
	s.SetHandlers(lies)
	s.SetVariables("with.dot", stringVariables("dotted"))
	lies[0].Name = "changed-after-set"

	discovery := decode[runtimehooksv1.DiscoveryResponse](t, callHook(t, client, url, discoveryPath))
	if len(discovery.Handlers) != 3 || discovery.Handlers[0].Name != "with.dot" || *discovery.Handlers[0].TimeoutSeconds != 31 ||
		discovery.Handlers[1].RequestHook.Hook != "NoSuchHook" || discovery.Handlers[2].RequestHook.APIVersion != "a/b/c" {
		t.Fatalf("Discovery advertised %+v, want the three handlers as set", discovery.Handlers)
	}

	tests := []struct {
		name       string
		path       string
		wantStatus int
	}{
		{name: "advertised handler with a dot", path: "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovervariables/with.dot", wantStatus: http.StatusOK},
		{name: "handler no longer advertised", path: discoverVariablesPath, wantStatus: http.StatusNotFound},
		{name: "advertised handler of an unknown hook", path: "/hooks.runtime.cluster.x-k8s.io/v1alpha1/nosuchhook/unknown-hook", wantStatus: http.StatusNotFound},
		{name: "Discovery", path: discoveryPath, wantStatus: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := post(client, url, tt.path, hookRequest(t, "DiscoverVariablesRequest"))
			if err != nil {
				t.Fatal(err)
			}
			if resp.status != tt.wantStatus {
				t.Errorf("HTTP %d, want %d: %s", resp.status, tt.wantStatus, resp.body)
			}
		})
	}

	got := decode[runtimehooksv1.DiscoverVariablesResponse](t, callHookAt(t, client, url, "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovervariables/with.dot", "DiscoverVariablesRequest"))
	if len(got.Variables) != 1 || got.Variables[0].Name != "dotted" {
		t.Errorf("with.dot returned %+v, want the variable dotted", got.Variables)
	}
	if calls := s.Calls(); calls["DiscoverVariables/with.dot"] != 2 {
		t.Errorf("calls %v, want 2 for DiscoverVariables/with.dot", calls)
	}
}

// callHookAt calls any path with a well-formed request of kind.
func callHookAt(t *testing.T, client *http.Client, url, path, kind string) response {
	t.Helper()
	resp, err := post(client, url, path, hookRequest(t, kind))
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	return resp
}

func TestServer_RejectsMalformedCalls(t *testing.T) {
	tests := []struct {
		name       string
		method     string
		path       string
		body       []byte
		wantStatus int
		wantCalls  map[string]int64
	}{
		{name: "unknown path", method: http.MethodPost, path: "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovervariables/nope", body: []byte("{}"), wantStatus: http.StatusNotFound, wantCalls: map[string]int64{}},
		{name: "root", method: http.MethodPost, path: "/", body: []byte("{}"), wantStatus: http.StatusNotFound, wantCalls: map[string]int64{}},
		{name: "GET", method: http.MethodGet, path: discoveryPath, wantStatus: http.StatusMethodNotAllowed, wantCalls: map[string]int64{}},
		{name: "body that is not JSON", method: http.MethodPost, path: discoverVariablesPath, body: []byte("not json"), wantStatus: http.StatusBadRequest, wantCalls: map[string]int64{"DiscoverVariables/discover-variables": 1}},
		{name: "body over 1 MiB", method: http.MethodPost, path: generatePatchesPath, body: bytes.Repeat([]byte(" "), sampleextension.MaxRequestBytes+1), wantStatus: http.StatusRequestEntityTooLarge, wantCalls: map[string]int64{"GeneratePatches/generate-patches": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sampleextension.New(sampleextension.Options{})
			url, client := extension(t, s)
			req, err := http.NewRequest(tt.method, url+tt.path, bytes.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("HTTP %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if tt.wantStatus == http.StatusMethodNotAllowed && resp.Header.Get("Allow") != http.MethodPost {
				t.Errorf("Allow %q, want POST", resp.Header.Get("Allow"))
			}
			if got := s.Calls(); !maps.Equal(got, tt.wantCalls) {
				t.Errorf("calls %v, want %v", got, tt.wantCalls)
			}
		})
	}
}

func TestServer_CountsCallsPerHookAndHandler(t *testing.T) {
	s := sampleextension.New(sampleextension.Options{})
	url, client := extension(t, s)
	s.SetFaults("ValidateTopology", sampleextension.Faults{ErrorRate: 1})

	for path, n := range map[string]int{discoveryPath: 2, discoverVariablesPath: 3, generatePatchesPath: 1, validateTopologyPath: 4} {
		for range n {
			callHook(t, client, url, path)
		}
	}
	// Neither reaches a handler, so neither counts.
	callHookAt(t, client, url, "/hooks.runtime.cluster.x-k8s.io/v1alpha1/generatepatches/unknown", "GeneratePatchesRequest")
	get, err := client.Get(url + discoveryPath)
	if err != nil {
		t.Fatal(err)
	}
	get.Body.Close()

	want := map[string]int64{
		"Discovery":                            2,
		"DiscoverVariables/discover-variables": 3,
		"GeneratePatches/generate-patches":     1,
		"ValidateTopology/validate-topology":   4,
	}
	if got := s.Calls(); !maps.Equal(got, want) {
		t.Errorf("Calls() = %v, want %v", got, want)
	}
	if got := s.Total(); got != 10 {
		t.Errorf("Total() = %d, want 10", got)
	}
	if counts := s.CallCounts(); counts.Total != 10 || !maps.Equal(counts.Calls, want) {
		t.Errorf("CallCounts() = %+v, want total 10 and %v", counts, want)
	}

	// Every request carried the same settings: one distinct set per handler.
	if got := s.SettingsSeen("DiscoverVariables/discover-variables"); len(got) != 1 || !maps.Equal(got[0], map[string]string{"origin": "test"}) {
		t.Errorf("SettingsSeen = %v, want the one set the requests carried", got)
	}
	s.ResetCalls()
	if got := s.Calls(); len(got) != 0 || s.Total() != 0 {
		t.Errorf("after ResetCalls: Calls() = %v, Total() = %d; want none", got, s.Total())
	}
	if got := s.SettingsSeen("DiscoverVariables/discover-variables"); len(got) != 0 {
		t.Errorf("after ResetCalls: SettingsSeen = %v, want none", got)
	}
	callHook(t, client, url, discoveryPath)
	if got := s.Calls(); !maps.Equal(got, map[string]int64{"Discovery": 1}) {
		t.Errorf("after ResetCalls and one Discovery: Calls() = %v", got)
	}
}

func TestServer_CountsConcurrentCallsExactly(t *testing.T) {
	s := sampleextension.New(sampleextension.Options{})
	url, client := extension(t, s)
	// Faulted calls count too, and must not disturb the others.
	s.SetFaults("GeneratePatches", sampleextension.Faults{ErrorRate: 0.5, FailureRate: 0.5})

	const workers = 50
	paths := []string{discoveryPath, discoverVariablesPath, generatePatchesPath, validateTopologyPath}
	bodies := map[string][]byte{}
	for _, path := range paths {
		bodies[path] = hookRequest(t, requestKinds[path])
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*len(paths))
	for w := range workers {
		wg.Go(func() {
			for i := range paths {
				path := paths[(w+i)%len(paths)]
				if _, err := post(client, url, path, bodies[path]); err != nil {
					errs <- fmt.Errorf("worker %d: %w", w, err)
				}
				_ = s.Calls() // read while others write
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	want := map[string]int64{
		"Discovery":                            workers,
		"DiscoverVariables/discover-variables": workers,
		"GeneratePatches/generate-patches":     workers,
		"ValidateTopology/validate-topology":   workers,
	}
	if got := s.Calls(); !maps.Equal(got, want) {
		t.Errorf("Calls() = %v, want %v", got, want)
	}
	if got := s.Total(); got != workers*int64(len(paths)) {
		t.Errorf("Total() = %d, want %d", got, workers*len(paths))
	}
}

func TestServer_AcceptsRequestsWithoutTypeMeta(t *testing.T) {
	url, client := extension(t, sampleextension.New(sampleextension.Options{}))
	// Cluster API sends TypeMeta, but an empty object must do as well.
	resp, err := post(client, url, discoveryPath, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if got := decode[runtimehooksv1.DiscoveryResponse](t, resp); resp.status != http.StatusOK || got.Status != runtimehooksv1.ResponseStatusSuccess {
		t.Errorf("HTTP %d, status %q; want 200, Success", resp.status, got.Status)
	}
	if !strings.Contains(string(resp.body), `"handlers":[`) {
		t.Errorf("body %s lists no handlers", resp.body)
	}
}
