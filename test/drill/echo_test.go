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

package drill

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

const discoverVariablesPath = "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovervariables/" + sampleextension.DiscoverVariablesHandler

// callDiscoverVariables sends one DiscoverVariables request with settings to h at host.
func callDiscoverVariables(t *testing.T, h http.Handler, host string, settings map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := &runtimehooksv1.DiscoverVariablesRequest{}
	req.SetGroupVersionKind(runtimehooksv1.GroupVersion.WithKind("DiscoverVariablesRequest"))
	req.Settings = settings
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, "https://"+host+discoverVariablesPath, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// answerNames decodes a DiscoverVariables answer.
func answerNames(t *testing.T, w *httptest.ResponseRecorder) (runtimehooksv1.ResponseStatus, []string) {
	t.Helper()
	var resp runtimehooksv1.DiscoverVariablesResponse
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
		t.Fatalf("answer %d %q: %v", w.Code, w.Body.String(), err)
	}
	var names []string
	for _, v := range resp.Variables {
		names = append(names, v.Name)
	}
	return resp.Status, names
}

func TestEchoRequests_AnswersNameTheSettingsRevisionAndTheHost(t *testing.T) {
	server := sampleextension.New(sampleextension.Options{
		Variables: map[string][]clusterv1.ClusterClassVariable{sampleextension.DiscoverVariablesHandler: answerOf(1)},
	})
	h := echoRequests(server)
	tests := []struct {
		name     string
		host     string
		settings map[string]string
		want     []string
	}{
		{"by address", "127.0.0.1:8443", map[string]string{revisionSetting: "3", "flavour": "x"}, []string{"size", "rev1", "settings-rev3", "via-127-0-0-1"}},
		{"by name", "localhost:8443", map[string]string{revisionSetting: "4"}, []string{"size", "rev1", "settings-rev4", "via-localhost"}},
		{"no revision", "localhost", nil, []string{"size", "rev1", "settings-rev", "via-localhost"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := callDiscoverVariables(t, h, tt.host, tt.settings)
			status, names := answerNames(t, w)
			if w.Code != http.StatusOK || status != runtimehooksv1.ResponseStatusSuccess {
				t.Fatalf("answer %d, status %s", w.Code, status)
			}
			if !slices.Equal(names, tt.want) {
				t.Errorf("variables %v, want %v", names, tt.want)
			}
		})
	}
	// The extension counted each call once, as the drill reads its counts.
	if n := server.Calls()["DiscoverVariables/"+sampleextension.DiscoverVariablesHandler]; n != int64(len(tests)) {
		t.Errorf("the extension counted %d calls, want %d", n, len(tests))
	}
}

func TestEchoRequests_LeavesFailuresAndOtherCallsAsTheyAre(t *testing.T) {
	server := sampleextension.New(sampleextension.Options{})
	h := echoRequests(server)
	server.SetFaults("DiscoverVariables", sampleextension.Faults{FailureRate: 1})
	status, names := answerNames(t, callDiscoverVariables(t, h, "127.0.0.1:8443", map[string]string{revisionSetting: "1"}))
	if status != runtimehooksv1.ResponseStatusFailure || len(names) != 0 {
		t.Errorf("a failure came back as %s with variables %v", status, names)
	}
	server.SetFaults("DiscoverVariables", sampleextension.Faults{ErrorRate: 1})
	if w := callDiscoverVariables(t, h, "127.0.0.1:8443", nil); w.Code != http.StatusInternalServerError {
		t.Errorf("an error came back as %d %q", w.Code, w.Body.String())
	}

	discovery := httptest.NewRequest(http.MethodGet, "https://127.0.0.1:8443/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery", nil)
	direct, echoed := httptest.NewRecorder(), httptest.NewRecorder()
	server.ServeHTTP(direct, discovery)
	h.ServeHTTP(echoed, discovery)
	if echoed.Code != direct.Code || echoed.Body.String() != direct.Body.String() {
		t.Errorf("Discovery through the echo: %d %q, directly: %d %q", echoed.Code, echoed.Body.String(), direct.Code, direct.Body.String())
	}
}
