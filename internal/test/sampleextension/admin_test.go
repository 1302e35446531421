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
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

// admin serves s.Admin() over plain HTTP on loopback for the test.
func admin(t *testing.T, s *sampleextension.Server) string {
	t.Helper()
	srv := httptest.NewServer(s.Admin())
	t.Cleanup(srv.Close)
	return srv.URL
}

// adminDo sends one admin request and returns the status and body.
func adminDo(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func TestAdmin_ControlsTheServer(t *testing.T) {
	s := sampleextension.New(sampleextension.Options{})
	url, client := extension(t, s)
	adminURL := admin(t, s)

	if status, body := adminDo(t, http.MethodGet, adminURL+"/healthz", ""); status != http.StatusOK || body != "ok" {
		t.Errorf("GET /healthz: HTTP %d %q, want 200 ok", status, body)
	}

	// PUT /handlers replaces what Discovery lists.
	status, body := adminDo(t, http.MethodPut, adminURL+"/handlers",
		`[{"name":"vars","requestHook":{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","hook":"DiscoverVariables"},"timeoutSeconds":31}]`)
	if status != http.StatusNoContent {
		t.Fatalf("PUT /handlers: HTTP %d %s", status, body)
	}
	discovery := decode[runtimehooksv1.DiscoveryResponse](t, callHook(t, client, url, discoveryPath))
	if len(discovery.Handlers) != 1 || discovery.Handlers[0].Name != "vars" || *discovery.Handlers[0].TimeoutSeconds != 31 {
		t.Errorf("Discovery lists %+v, want only vars with timeout 31", discovery.Handlers)
	}

	// PUT /variables sets what a DiscoverVariables handler returns.
	status, body = adminDo(t, http.MethodPut, adminURL+"/variables?handler=vars",
		`[{"name":"region","required":true,"schema":{"openAPIV3Schema":{"type":"string"}}}]`)
	if status != http.StatusNoContent {
		t.Fatalf("PUT /variables: HTTP %d %s", status, body)
	}
	varsPath := "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovervariables/vars"
	vars := decode[runtimehooksv1.DiscoverVariablesResponse](t, callHookAt(t, client, url, varsPath, "DiscoverVariablesRequest"))
	if len(vars.Variables) != 1 || vars.Variables[0].Name != "region" || vars.Variables[0].Schema.OpenAPIV3Schema.Type != "string" {
		t.Errorf("variables %+v, want region of type string", vars.Variables)
	}

	// PUT /faults, with the delay in nanoseconds, for one hook.
	status, body = adminDo(t, http.MethodPut, adminURL+"/faults?hook=DiscoverVariables", `{"delay":1000000,"errorRate":1}`)
	if status != http.StatusNoContent {
		t.Fatalf("PUT /faults: HTTP %d %s", status, body)
	}
	if resp := callHookAt(t, client, url, varsPath, "DiscoverVariablesRequest"); resp.status != http.StatusInternalServerError {
		t.Errorf("with errorRate 1: HTTP %d, want 500", resp.status)
	}
	if resp := callHook(t, client, url, discoveryPath); resp.status != http.StatusOK {
		t.Errorf("Discovery with faults on DiscoverVariables only: HTTP %d, want 200", resp.status)
	}
	// DELETE /faults removes them.
	if status, body := adminDo(t, http.MethodDelete, adminURL+"/faults", ""); status != http.StatusNoContent {
		t.Fatalf("DELETE /faults: HTTP %d %s", status, body)
	}
	if resp := callHookAt(t, client, url, varsPath, "DiscoverVariablesRequest"); resp.status != http.StatusOK {
		t.Errorf("after DELETE /faults: HTTP %d, want 200", resp.status)
	}

	// GET /calls reports what the extension answered.
	status, body = adminDo(t, http.MethodGet, adminURL+"/calls", "")
	if status != http.StatusOK {
		t.Fatalf("GET /calls: HTTP %d %s", status, body)
	}
	var counts struct {
		Total int64            `json:"total"`
		Calls map[string]int64 `json:"calls"`
	}
	if err := json.Unmarshal([]byte(body), &counts); err != nil {
		t.Fatalf("GET /calls body %s: %v", body, err)
	}
	wantCalls := map[string]int64{"Discovery": 2, "DiscoverVariables/vars": 3}
	if counts.Total != 5 || !maps.Equal(counts.Calls, wantCalls) {
		t.Errorf("GET /calls = %s, want total 5 and %v", body, wantCalls)
	}

	// POST /calls/reset zeroes them.
	if status, body := adminDo(t, http.MethodPost, adminURL+"/calls/reset", ""); status != http.StatusNoContent {
		t.Fatalf("POST /calls/reset: HTTP %d %s", status, body)
	}
	if _, body := adminDo(t, http.MethodGet, adminURL+"/calls", ""); body != `{"total":0,"calls":{}}` {
		t.Errorf("GET /calls after reset = %s, want no calls", body)
	}
}

func TestAdmin_GlobalFaultsTakeDurationStrings(t *testing.T) {
	s := sampleextension.New(sampleextension.Options{})
	url, client := extension(t, s)
	adminURL := admin(t, s)

	const delay = 200 * time.Millisecond
	if status, body := adminDo(t, http.MethodPut, adminURL+"/faults", `{"delay":"200ms"}`); status != http.StatusNoContent {
		t.Fatalf("PUT /faults: HTTP %d %s", status, body)
	}
	start := time.Now()
	callHook(t, client, url, generatePatchesPath)
	if elapsed := time.Since(start); elapsed < delay {
		t.Errorf("answered after %s, want at least %s", elapsed, delay)
	}
}

func TestAdmin_RejectsBadRequests(t *testing.T) {
	tests := []struct {
		name       string
		method     string
		path       string
		body       string
		wantStatus int
		wantBody   string
	}{
		{name: "faults that are not JSON", method: http.MethodPut, path: "/faults", body: "{", wantStatus: http.StatusBadRequest, wantBody: "decode"},
		{name: "misspelt fault", method: http.MethodPut, path: "/faults", body: `{"errorRat":1}`, wantStatus: http.StatusBadRequest, wantBody: "errorRat"},
		{name: "rate above 1", method: http.MethodPut, path: "/faults?hook=Discovery", body: `{"errorRate":2}`, wantStatus: http.StatusBadRequest, wantBody: "errorRate"},
		{name: "bad delay", method: http.MethodPut, path: "/faults", body: `{"delay":"soon"}`, wantStatus: http.StatusBadRequest, wantBody: "soon"},
		{name: "variables without handler", method: http.MethodPut, path: "/variables", body: `[]`, wantStatus: http.StatusBadRequest, wantBody: "handler"},
		{name: "variables with unknown field", method: http.MethodPut, path: "/variables?handler=x", body: `[{"nmae":"x"}]`, wantStatus: http.StatusBadRequest, wantBody: "nmae"},
		{name: "handlers null", method: http.MethodPut, path: "/handlers", body: `null`, wantStatus: http.StatusBadRequest, wantBody: "list"},
		{name: "two JSON values", method: http.MethodPut, path: "/handlers", body: `[] []`, wantStatus: http.StatusBadRequest, wantBody: "more than one"},
		{name: "POST to /calls", method: http.MethodPost, path: "/calls", wantStatus: http.StatusMethodNotAllowed},
		{name: "GET /calls/reset", method: http.MethodGet, path: "/calls/reset", wantStatus: http.StatusMethodNotAllowed},
		{name: "unknown path", method: http.MethodGet, path: "/nope", wantStatus: http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sampleextension.New(sampleextension.Options{})
			status, body := adminDo(t, tt.method, admin(t, s)+tt.path, tt.body)
			if status != tt.wantStatus || !strings.Contains(body, tt.wantBody) {
				t.Errorf("HTTP %d %q, want %d mentioning %q", status, body, tt.wantStatus, tt.wantBody)
			}
		})
	}
}
