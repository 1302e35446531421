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
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/cmd/core-manager/extensioncalls"
	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextensiontest"
)

// withPatchesHandler returns our client behind Cluster API's interface,
// with one GeneratePatches handler, patches.ext, registered at config.
func withPatchesHandler(t *testing.T, config runtimev1.ClientConfig, policy runtimev1.FailurePolicy, opts rtclient.Options) *extensioncalls.Client {
	t.Helper()
	calls, err := rtclient.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	c := extensioncalls.New(calls, registry.New(), nil, nil)
	ext := runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "ext"},
		Spec:       runtimev1.ExtensionConfigSpec{ClientConfig: config, NamespaceSelector: &metav1.LabelSelector{}},
		Status: runtimev1.ExtensionConfigStatus{Handlers: []runtimev1.ExtensionHandler{{
			Name:           "patches.ext",
			RequestHook:    runtimev1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "GeneratePatches"},
			TimeoutSeconds: 1,
			FailurePolicy:  policy,
		}}},
	}
	if err := c.WarmUp(&runtimev1.ExtensionConfigList{Items: []runtimev1.ExtensionConfig{ext}}); err != nil {
		t.Fatal(err)
	}
	return c
}

// As in Cluster API's client, failurePolicy Ignore makes a default success
// of a call without a readable answer (unreachable, timed out, not HTTP
// 200, not JSON of the response's type) and of nothing else. Ignore
// "ignored" means the call succeeds with no patches.
func TestCallExtension_FailurePolicyIgnoresOnlyCallsWithoutAReadableAnswer(t *testing.T) {
	unreachable := sampleextensiontest.UnreachableURL(t)
	patch := `"items":[{"uid":"u1","patchType":"JSONPatch","patch":"W10="}]`
	const prefix = `failed to call extension handler "patches.ext": `

	tests := []struct {
		name   string
		config func(t *testing.T) runtimev1.ClientConfig
		opts   rtclient.Options
		// ignored: the call succeeds under Ignore and fails under Fail;
		// otherwise it fails under both, saying want.
		ignored bool
		want    string
	}{
		{name: "unreachable", ignored: true, want: "unreachable",
			config: func(t *testing.T) runtimev1.ClientConfig {
				return runtimev1.ClientConfig{URL: unreachable, CABundle: sampleextensiontest.Answering(t, http.StatusOK, "").CABundle}
			}},
		{name: "timeout", ignored: true, want: "did not answer within 1s",
			config: func(t *testing.T) runtimev1.ClientConfig {
				url, ca, stop, err := sampleextension.StartTLS(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(stop)
				return runtimev1.ClientConfig{URL: url, CABundle: ca}
			}},
		{name: "HTTP 500", ignored: true, want: "answered HTTP 500",
			config: func(t *testing.T) runtimev1.ClientConfig {
				return sampleextensiontest.Answering(t, http.StatusInternalServerError, "boom")
			}},
		{name: "body not JSON", ignored: true, want: "not a JSON object",
			config: func(t *testing.T) runtimev1.ClientConfig {
				return sampleextensiontest.Answering(t, http.StatusOK, "<html>")
			}},
		// Unlike Cluster API's client, no half-decoded patch survives.
		{name: "JSON of another shape after a patch", ignored: true, want: "cannot unmarshal number",
			config: func(t *testing.T) runtimev1.ClientConfig {
				return sampleextensiontest.Answering(t, http.StatusOK, `{"status":"Success",`+patch+`,"message":5}`)
			}},
		{name: "status Failure", want: prefix + "got failure response with message: no",
			config: func(t *testing.T) runtimev1.ClientConfig {
				return sampleextensiontest.Answering(t, http.StatusOK, `{"status":"Failure","message":"no"}`)
			}},
		{name: "status unknown", want: prefix + `got unknown response status "Maybe" with message: hm`,
			config: func(t *testing.T) runtimev1.ClientConfig {
				return sampleextensiontest.Answering(t, http.StatusOK, `{"status":"Maybe","message":"hm",`+patch+`}`)
			}},
		{name: "no status", want: prefix + `got unknown response status "" with message: `,
			config: func(t *testing.T) runtimev1.ClientConfig {
				return sampleextensiontest.Answering(t, http.StatusOK, `{`+patch+`}`)
			}},
		{name: "over the size bound", opts: rtclient.Options{MaxResponseBytes: 1024}, want: "larger than 1024 bytes",
			config: func(t *testing.T) runtimev1.ClientConfig {
				return sampleextensiontest.Answering(t, http.StatusOK, `{"status":"Success",`+patch+`,"message":"`+strings.Repeat("x", 2048)+`"}`)
			}},
		{name: "another hook's kind", want: "answered a ValidateTopologyResponse where a GeneratePatchesResponse was expected",
			config: func(t *testing.T) runtimev1.ClientConfig {
				return sampleextensiontest.Answering(t, http.StatusOK, `{"kind":"ValidateTopologyResponse","status":"Success"}`)
			}},
		{name: "caBundle without PEM", want: "caBundle holds no PEM",
			config: func(t *testing.T) runtimev1.ClientConfig {
				return runtimev1.ClientConfig{URL: sampleextensiontest.Answering(t, http.StatusOK, "").URL, CABundle: []byte("not pem")}
			}},
		{name: "url not https", want: "must use https",
			config: func(*testing.T) runtimev1.ClientConfig { return runtimev1.ClientConfig{URL: "http://127.0.0.1:1"} }},
	}
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c1"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := tt.config(t)
			for _, policy := range []runtimev1.FailurePolicy{runtimev1.FailurePolicyIgnore, runtimev1.FailurePolicyFail} {
				c := withPatchesHandler(t, config, policy, tt.opts)
				response := &runtimehooksv1.GeneratePatchesResponse{}
				request := &runtimehooksv1.GeneratePatchesRequest{Items: []runtimehooksv1.GeneratePatchesRequestItem{{UID: "u1"}}}
				err := c.CallExtension(context.Background(), runtimehooksv1.GeneratePatches, cluster, "patches.ext", request, response)
				if tt.ignored && policy == runtimev1.FailurePolicyIgnore {
					if err != nil || response.Status != runtimehooksv1.ResponseStatusSuccess || response.Message != "" || len(response.Items) != 0 {
						t.Errorf("Ignore: %v, answer %+v; want a success with no patches", err, response)
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s: error %v, want one saying %q", policy, err, tt.want)
				}
			}
		})
	}
}
