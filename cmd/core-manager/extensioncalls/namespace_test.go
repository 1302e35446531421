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
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
)

// A Namespace that cannot be read fails the call, saying why, as it fails
// GetAllExtensions: the caller retries, knowing what to fix.
func TestClient_ANamespaceThatCannotBeReadFailsTheCallSayingWhy(t *testing.T) {
	r := newRig(t, &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "a"}}, runtimehooksv1.FailurePolicyFail)
	if err := r.client.WarmUp(&runtimev1.ExtensionConfigList{Items: []runtimev1.ExtensionConfig{*r.config}}); err != nil {
		t.Fatal(err)
	}
	missing := "gone-" + rand.String(6)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name      string
		ctx       context.Context
		namespace string
		want      []string
	}{
		{"a namespace that does not exist", context.Background(), missing, []string{"failed to get namespace " + missing, "not found"}},
		{"a cancelled context", cancelled, env.Namespace(t, map[string]string{"tier": "a"}), []string{"failed to get namespace", "context canceled"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := r.client.CallExtension(tc.ctx, runtimehooksv1.DiscoverVariables, classIn(tc.namespace), "discover-variables.sizing",
				&runtimehooksv1.DiscoverVariablesRequest{}, &runtimehooksv1.DiscoverVariablesResponse{})
			if err == nil {
				t.Fatal("CallExtension succeeded")
			}
			prefix := `failed to call extension handler "discover-variables.sizing": `
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("CallExtension: %v, want it to start %s", err, prefix)
			}
			for _, part := range tc.want {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("CallExtension: %v, want it to say %q", err, part)
				}
			}
			_, err = r.client.GetAllExtensions(tc.ctx, runtimehooksv1.DiscoverVariables, classIn(tc.namespace))
			for _, part := range tc.want {
				if err == nil || !strings.Contains(err.Error(), part) {
					t.Errorf("GetAllExtensions: %v, want it to say %q", err, part)
				}
			}
		})
	}
	if n := r.extension.Server.Calls()["DiscoverVariables/discover-variables"]; n != 0 {
		t.Errorf("the extension got %d DiscoverVariables calls, want none", n)
	}
}
