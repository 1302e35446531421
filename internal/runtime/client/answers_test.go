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

package client

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// answering returns a handler that answers every call with code and body
// as they are, under a Content-Type that says nothing of JSON: Cluster
// API's client reads neither header.
func answering(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

// callHook calls hook's handler "h" at config and returns the decoded
// response and Call's error.
func callHook(t *testing.T, c *Client, config runtimev1.ClientConfig, hook runtimecatalog.Hook) (runtimehooksv1.ResponseObject, error) {
	t.Helper()
	gvh, err := c.Catalog().GroupVersionHook(hook)
	if err != nil {
		t.Fatal(err)
	}
	request, err := c.Catalog().NewRequest(gvh)
	if err != nil {
		t.Fatal(err)
	}
	response, err := c.Catalog().NewResponse(gvh)
	if err != nil {
		t.Fatal(err)
	}
	out := response.(runtimehooksv1.ResponseObject)
	return out, c.Call(context.Background(), config, gvh, "h", 2*time.Second, nil, request, out)
}

const sizeVariable = `[{"name":"size","required":true,"schema":{"openAPIV3Schema":{"type":"string"}}}]`

// Every answer here is one Cluster API v1.14.2's client accepts (it reads
// the first JSON value with a json.Decoder and checks only the status).
func TestCall_AcceptsWhatClusterAPIsClientAccepts(t *testing.T) {
	hasSize := func(t *testing.T, r runtimehooksv1.ResponseObject) {
		t.Helper()
		vars := r.(*runtimehooksv1.DiscoverVariablesResponse).Variables
		if len(vars) != 1 || vars[0].Name != "size" || vars[0].Required == nil || !*vars[0].Required {
			t.Errorf("variables %+v, want the required variable size", vars)
		}
	}
	tests := []struct {
		name  string
		hook  runtimecatalog.Hook
		body  string
		check func(*testing.T, runtimehooksv1.ResponseObject)
	}{
		{name: "no apiVersion or kind, as Cluster API's server library writes", hook: runtimehooksv1.DiscoverVariables,
			body: `{"status":"Success","variables":` + sizeVariable + `}`, check: hasSize},
		{name: "apiVersion without kind", hook: runtimehooksv1.DiscoverVariables,
			body: `{"apiVersion":"` + hooksAPIVersion + `","status":"Success","variables":` + sizeVariable + `}`, check: hasSize},
		{name: "kind without apiVersion", hook: runtimehooksv1.DiscoverVariables,
			body: `{"kind":"DiscoverVariablesResponse","status":"Success","variables":` + sizeVariable + `}`, check: hasSize},
		{name: "bytes after the JSON object", hook: runtimehooksv1.DiscoverVariables,
			body: `{"status":"Success","variables":` + sizeVariable + `}garbage{"`, check: hasSize},
		{name: "a second JSON value after it, never read", hook: runtimehooksv1.DiscoverVariables,
			body: `{"status":"Success","variables":` + sizeVariable + "}\n" + `{"status":"Failure","variables":[]}`, check: hasSize},
		{name: "white space before the object", hook: runtimehooksv1.DiscoverVariables,
			body: "\n\t " + `{"status":"Success","variables":` + sizeVariable + `}`, check: hasSize},
		{name: "unknown fields", hook: runtimehooksv1.DiscoverVariables,
			body: `{"status":"Success","colour":"red","metadata":{"name":"x"},"variables":` + sizeVariable + `}`, check: hasSize},
		{name: "keys in another case", hook: runtimehooksv1.DiscoverVariables,
			body: `{"Status":"Success","VARIABLES":` + sizeVariable + `}`, check: hasSize},
		{name: "null variables", hook: runtimehooksv1.DiscoverVariables, body: `{"status":"Success","variables":null}`,
			check: func(t *testing.T, r runtimehooksv1.ResponseObject) {
				if vars := r.(*runtimehooksv1.DiscoverVariablesResponse).Variables; len(vars) != 0 {
					t.Errorf("variables %+v, want none", vars)
				}
			}},
		{name: "retryAfterSeconds on a hook that does not block", hook: runtimehooksv1.GeneratePatches,
			body: `{"status":"Success","retryAfterSeconds":5,"items":[{"uid":"u1","patchType":"JSONPatch","patch":"W10="}]}`,
			check: func(t *testing.T, r runtimehooksv1.ResponseObject) {
				items := r.(*runtimehooksv1.GeneratePatchesResponse).Items
				if len(items) != 1 || items[0].UID != "u1" || string(items[0].Patch) != "[]" {
					t.Errorf("items %+v, want the patch [] for u1", items)
				}
			}},
		{name: "retryAfterSeconds on a blocking hook", hook: runtimehooksv1.BeforeClusterCreate,
			body: `{"status":"Success","message":"wait","retryAfterSeconds":5}`,
			check: func(t *testing.T, r runtimehooksv1.ResponseObject) {
				blocking := r.(*runtimehooksv1.BeforeClusterCreateResponse)
				if blocking.RetryAfterSeconds != 5 || blocking.Message != "wait" {
					t.Errorf("answer %+v, want retryAfterSeconds 5 and message wait", blocking)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, ca := tlsServer(t, answering(http.StatusOK, tt.body))
			response, err := callHook(t, newClient(t, Options{}), runtimev1.ClientConfig{URL: url, CABundle: ca}, tt.hook)
			if err != nil {
				t.Fatalf("refused %s: %v", tt.body, err)
			}
			tt.check(t, response)
		})
	}
}

func TestDiscover_AcceptsWhatClusterAPIsClientAccepts(t *testing.T) {
	hook := func(name string) string {
		return `{"name":"` + strings.ToLower(name) + `","requestHook":{"apiVersion":"` + hooksAPIVersion + `","hook":"` + name + `"}}`
	}
	tests := []struct {
		name string
		body string
		want []string
	}{
		{name: "no apiVersion or kind", body: `{"status":"Success","handlers":[` + hook("DiscoverVariables") + `]}`, want: []string{"DiscoverVariables"}},
		{name: "an empty list of handlers", body: `{"status":"Success","handlers":[]}`},
		{name: "no list of handlers", body: `{"status":"Success"}`},
		// Cluster API registers it; nothing ever calls it.
		{name: "a Discovery handler", body: `{"status":"Success","handlers":[` + hook("Discovery") + `]}`, want: []string{"Discovery"}},
		{name: "bytes after the JSON object", body: `{"status":"Success","handlers":[` + hook("GeneratePatches") + `]}` + "\n\x00trailer", want: []string{"GeneratePatches"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, ca := tlsServer(t, answering(http.StatusOK, tt.body))
			handlers, err := newClient(t, Options{}).Discover(context.Background(), extensionAt(url, ca))
			if err != nil {
				t.Fatalf("refused %q: %v", tt.body, err)
			}
			if len(handlers) != len(tt.want) {
				t.Fatalf("handlers %+v, want %v", handlers, tt.want)
			}
			for i, h := range handlers {
				if h.RequestHook.Hook != tt.want[i] || h.TimeoutSeconds != 10 || h.FailurePolicy != runtimev1.FailurePolicyFail {
					t.Errorf("handler %+v, want hook %s defaulted to 10s and Fail", h, tt.want[i])
				}
			}
		})
	}
}

// Failure policy decides what a call without a readable answer means, and
// nothing else, as in Cluster API's client: a configuration no call can be
// made with, an answer that decoded but does not say Success, and our own
// two refusals (the size bound, another hook's kind) fail under Ignore too.
func TestCall_FailurePolicyAppliesOnlyToCallsWithoutAReadableAnswer(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := "https://" + closed.Addr().String()
	closed.Close()
	serve := func(h http.HandlerFunc) runtimev1.ClientConfig {
		url, ca := tlsServer(t, h)
		return runtimev1.ClientConfig{URL: url, CABundle: ca}
	}
	okConfig := serve(answering(http.StatusOK, `{"status":"Success"}`))

	tests := []struct {
		name       string
		config     runtimev1.ClientConfig
		opts       Options
		want       string
		policy     bool
		wantStatus runtimehooksv1.ResponseStatus // of a StatusError; none when empty
	}{
		{name: "unreachable", config: runtimev1.ClientConfig{URL: unreachable, CABundle: okConfig.CABundle}, want: "unreachable", policy: true},
		{name: "timeout", config: serve(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }), want: "did not answer within", policy: true},
		{name: "HTTP 500", config: serve(answering(http.StatusInternalServerError, "boom")), want: `answered HTTP 500: "boom"`, policy: true},
		{name: "HTTP 404 without a body", config: serve(answering(http.StatusNotFound, "")), want: "HTTP 404: (empty body)", policy: true},
		{name: "redirect", config: serve(func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/elsewhere", http.StatusFound) }), want: "redirects are refused", policy: true},
		{name: "body not JSON", config: serve(answering(http.StatusOK, "<html>")), want: `not a JSON object (invalid character '<'`, policy: true},
		{name: "empty body", config: serve(answering(http.StatusOK, "")), want: "not a JSON object (EOF): (empty body)", policy: true},
		{name: "JSON of another shape", config: serve(answering(http.StatusOK, `{"status":5}`)), want: "not a DiscoverVariablesResponse: json: cannot unmarshal number", policy: true},
		{name: "JSON array", config: serve(answering(http.StatusOK, `[]`)), want: "not a DiscoverVariablesResponse", policy: true},
		{name: "caBundle without PEM", config: runtimev1.ClientConfig{URL: okConfig.URL, CABundle: []byte("not pem")}, want: "caBundle holds no PEM"},
		{name: "url not https", config: runtimev1.ClientConfig{URL: "http://127.0.0.1:1"}, want: "must use https"},
		{name: "over the size bound", config: serve(answering(http.StatusOK, `{"status":"Success","message":"`+strings.Repeat("x", 2048)+`"}`)),
			opts: Options{MaxResponseBytes: 1024}, want: "larger than 1024 bytes"},
		{name: "another hook's kind", config: serve(answering(http.StatusOK, `{"kind":"GeneratePatchesResponse","status":"Success"}`)),
			want: "answered a GeneratePatchesResponse where a DiscoverVariablesResponse was expected"},
		{name: "status Failure", config: serve(answering(http.StatusOK, `{"status":"Failure","message":"no"}`)),
			want: `answered status "Failure": no`, wantStatus: runtimehooksv1.ResponseStatusFailure},
		{name: "status unknown", config: serve(answering(http.StatusOK, `{"status":"Maybe"}`)),
			want: `answered status "Maybe", which is neither "Success" nor "Failure"`, wantStatus: "Maybe"},
		{name: "no status", config: serve(answering(http.StatusOK, `{"variables":[]}`)), want: `answered status ""`, wantStatus: "-"},
		{name: "null", config: serve(answering(http.StatusOK, `null`)), want: `answered status ""`, wantStatus: "-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, tt.opts)
			gvh, err := c.Catalog().GroupVersionHook(runtimehooksv1.DiscoverVariables)
			if err != nil {
				t.Fatal(err)
			}
			err = c.Call(context.Background(), tt.config, gvh, "h", 500*time.Millisecond, nil,
				&runtimehooksv1.DiscoverVariablesRequest{}, &runtimehooksv1.DiscoverVariablesResponse{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
			if got := FailurePolicyApplies(err); got != tt.policy {
				t.Errorf("FailurePolicyApplies = %v, want %v", got, tt.policy)
			}
			var answered *StatusError
			switch isStatus := errors.As(err, &answered); {
			case tt.wantStatus == "" && isStatus:
				t.Errorf("a StatusError (%v) for a call whose answer did not decode", err)
			case tt.wantStatus == "-" && (!isStatus || answered.Status != ""):
				t.Errorf("error %v, want a StatusError without status", err)
			case tt.wantStatus != "" && tt.wantStatus != "-" && (!isStatus || answered.Status != tt.wantStatus):
				t.Errorf("error %v, want a StatusError of status %s", err, tt.wantStatus)
			}
		})
	}
}

// The bound is the 200 answer's: whatever its status says, an answer over
// it fails, and no failure policy ignores it. The body of any other answer
// is only quoted, whatever its size.
func TestCall_AnswersOverTheBoundFailWhateverTheirStatus(t *testing.T) {
	huge := strings.Repeat("x", 64<<10)
	tests := []struct {
		name   string
		code   int
		body   string
		want   string
		policy bool
	}{
		{name: "Success", code: http.StatusOK, body: `{"status":"Success","items":[],"message":"` + huge + `"}`, want: "larger than 1024 bytes: refused"},
		{name: "Failure", code: http.StatusOK, body: `{"status":"Failure","message":"` + huge + `"}`, want: "larger than 1024 bytes: refused"},
		{name: "HTTP 500", code: http.StatusInternalServerError, body: "trace " + huge, want: `answered HTTP 500: "trace xxx`, policy: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, ca := tlsServer(t, answering(tt.code, tt.body))
			_, err := callHook(t, newClient(t, Options{MaxResponseBytes: 1024}), runtimev1.ClientConfig{URL: url, CABundle: ca}, runtimehooksv1.GeneratePatches)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
			if got := FailurePolicyApplies(err); got != tt.policy {
				t.Errorf("FailurePolicyApplies = %v, want %v", got, tt.policy)
			}
			if len(err.Error()) > 600 {
				t.Errorf("error is %d bytes long; want a few hundred at most", len(err.Error()))
			}
		})
	}
}

// The bound holds the largest answer a request Cluster API's server library
// reads (20 MiB) can call for: patches replacing all of it, in base64.
func TestDefaultMaxResponseBytes_HoldsPatchesForTheLargestRequest(t *testing.T) {
	const serverLibraryRequestBytes = 20 << 20
	if userfacing.DefaultMaxResponseBytes < serverLibraryRequestBytes*4/3 {
		t.Errorf("userfacing.DefaultMaxResponseBytes %d is below %d", userfacing.DefaultMaxResponseBytes, serverLibraryRequestBytes*4/3)
	}
}

// Our one check of the answer's own words beyond Cluster API's: an answer
// that names another hook's kind, or another apiVersion, is named in the
// error. Cluster API's server library names neither.
func TestCall_AnswersOfAnotherKindOrAPIVersionAreNamed(t *testing.T) {
	tests := []struct {
		name string
		hook runtimecatalog.Hook
		body string
		want string
	}{
		{name: "DiscoverVariables answered by a Discovery answer", hook: runtimehooksv1.DiscoverVariables,
			body: `{"apiVersion":"` + hooksAPIVersion + `","kind":"DiscoveryResponse","status":"Success"}`,
			want: "answered a DiscoveryResponse where a DiscoverVariablesResponse was expected (another hook's answer)"},
		{name: "GeneratePatches answered by a ValidateTopology answer", hook: runtimehooksv1.GeneratePatches,
			body: `{"kind":"ValidateTopologyResponse","status":"Success"}`,
			want: "answered a ValidateTopologyResponse where a GeneratePatchesResponse was expected"},
		{name: "another apiVersion", hook: runtimehooksv1.DiscoverVariables,
			body: `{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1beta9","kind":"DiscoverVariablesResponse","status":"Success"}`,
			want: `answered a DiscoverVariablesResponse of apiVersion "hooks.runtime.cluster.x-k8s.io/v1beta9" where "` + hooksAPIVersion + `" was expected`},
		{name: "an apiVersion that does not parse", hook: runtimehooksv1.DiscoverVariables,
			body: `{"apiVersion":"a/b/c","status":"Success"}`, want: `of apiVersion "a/b/c" where`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, ca := tlsServer(t, answering(http.StatusOK, tt.body))
			_, err := callHook(t, newClient(t, Options{}), runtimev1.ClientConfig{URL: url, CABundle: ca}, tt.hook)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
			if FailurePolicyApplies(err) {
				t.Errorf("failure policy would decide %v", err)
			}
		})
	}
}

// A kind the caller set on the response before the call is not taken for
// the extension's.
func TestCall_ChecksTheKindTheExtensionWrote(t *testing.T) {
	url, ca := tlsServer(t, answering(http.StatusOK, `{"status":"Success"}`))
	c := newClient(t, Options{})
	gvh, err := c.Catalog().GroupVersionHook(runtimehooksv1.DiscoverVariables)
	if err != nil {
		t.Fatal(err)
	}
	response := &runtimehooksv1.DiscoverVariablesResponse{}
	response.Kind = "SomethingElse"
	if err := c.Call(context.Background(), runtimev1.ClientConfig{URL: url, CABundle: ca}, gvh, "h", time.Second, nil,
		&runtimehooksv1.DiscoverVariablesRequest{}, response); err != nil {
		t.Fatalf("an answer without kind was refused for the kind the caller had set: %v", err)
	}
}
