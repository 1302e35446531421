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
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"

	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/benchfixture"
)

// revisionSetting is the key of an ExtensionConfig's spec.settings the
// drills bump to change its registration.
const revisionSetting = "revision"

// echoRequests wraps an extension so that every DiscoverVariables answer
// also names the registration it was asked through: one variable for the
// config's settings revision the request carries, one for the host it was
// sent to. A ClusterClass's status then shows which registration of its
// config the controller called, so a controller that keeps calling an old
// one (settings or URL) leaves statuses a fresh controller rewrites. Other
// calls, and answers that are not a success, pass unchanged.
func echoRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.Contains(r.URL.Path, "/discovervariables/") {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req runtimehooksv1.DiscoverVariablesRequest
		// A body that does not decode goes on as it is: the extension
		// answers it as it answers any bad request.
		decoded := json.Unmarshal(body, &req) == nil
		r.Body = io.NopCloser(bytes.NewReader(body))
		answer := httptest.NewRecorder()
		next.ServeHTTP(answer, r)
		out := answer.Body.Bytes()
		if decoded && answer.Code == http.StatusOK {
			out = withEcho(out, echoVariables(req.Settings, r.Host))
		}
		for key, values := range answer.Header() {
			w.Header()[key] = values
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(answer.Code)
		_, _ = w.Write(out)
	})
}

// echoVariables are the names echoRequests adds for a request with
// settings, sent to host: "settings-rev<revision>" and "via-<host>", the
// host's dots made dashes (a variable name may hold no dot).
func echoVariables(settings map[string]string, host string) []string {
	if name, _, err := net.SplitHostPort(host); err == nil {
		host = name
	}
	return []string{"settings-rev" + settings[revisionSetting], "via-" + strings.ReplaceAll(host, ".", "-")}
}

// withEcho adds string variables named names to a successful
// DiscoverVariables response body; any other body comes back unchanged.
func withEcho(body []byte, names []string) []byte {
	var resp runtimehooksv1.DiscoverVariablesResponse
	if err := json.Unmarshal(body, &resp); err != nil || resp.Status != runtimehooksv1.ResponseStatusSuccess {
		return body
	}
	for _, name := range names {
		resp.Variables = append(resp.Variables, benchfixture.StringVariable(name))
	}
	out, err := json.Marshal(resp)
	if err != nil {
		return body
	}
	return out
}
