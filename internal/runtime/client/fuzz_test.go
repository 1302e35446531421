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
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/variableschema"
)

// The seeds of the fuzz targets are files under testdata/fuzz/<target>/, so
// that `go test` replays them and `make fuzz` starts from them.

func fuzzCatalog(t testing.TB) *runtimecatalog.Catalog {
	t.Helper()
	cat := runtimecatalog.New()
	if err := runtimehooksv1.AddToCatalog(cat); err != nil {
		t.Fatal(err)
	}
	return cat
}

// FuzzDiscoveryResponse feeds arbitrary bytes through the decoding and
// validation a Discovery answer goes through. It must never panic, and
// whatever it accepts must be registrable: names without dots, known hooks,
// timeouts within 0..30, a known failure policy.
func FuzzDiscoveryResponse(f *testing.F) {
	cat := fuzzCatalog(f)
	want, err := cat.Response(runtimecatalog.GroupVersionHook{Group: "hooks.runtime.cluster.x-k8s.io", Version: "v1alpha1", Hook: "Discovery"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		response := &runtimehooksv1.DiscoveryResponse{}
		if err := decodeResponse(data, want, response); err != nil {
			return
		}
		handlers, err := ValidateDiscovery(cat, response)
		if err != nil {
			return
		}
		for _, h := range handlers {
			if h.Name == "" || strings.Contains(h.Name, ".") || h.TimeoutSeconds < 0 || h.TimeoutSeconds > 30 ||
				(h.FailurePolicy != "Fail" && h.FailurePolicy != "Ignore") {
				t.Fatalf("accepted an invalid handler %+v from %q", h, data)
			}
		}
	})
}

// FuzzDiscoverVariablesResponse feeds arbitrary bytes through what a
// DiscoverVariables answer goes through before its variables can reach a
// ClusterClass's status: decoding, which refuses another hook's kind, and
// then the schema validation the ClusterClass controller runs on every
// discovered variable. Neither may panic, and every problem the validation
// reports must point into the variable it is about, so that the condition
// message names the right field.
func FuzzDiscoverVariablesResponse(f *testing.F) {
	cat := fuzzCatalog(f)
	want, err := cat.Response(runtimecatalog.GroupVersionHook{Group: "hooks.runtime.cluster.x-k8s.io", Version: "v1alpha1", Hook: "DiscoverVariables"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		response := &runtimehooksv1.DiscoverVariablesResponse{}
		if err := decodeResponse(data, want, response); err != nil {
			return
		}
		// As Cluster API's server library writes them, apiVersion and kind
		// may be absent; present, they are the hook's.
		if (response.Kind != "" && response.Kind != want.Kind) || (response.APIVersion != "" && response.APIVersion != want.GroupVersion().String()) {
			t.Fatalf("accepted apiVersion %q kind %q", response.APIVersion, response.Kind)
		}
		for _, v := range response.Variables {
			// The same path the controller uses for discovered variables.
			path := field.NewPath("variables").Key(v.Name)
			for _, e := range variableschema.Validate(v, path) {
				if !strings.HasPrefix(e.Field, path.String()) {
					t.Fatalf("variable %q: error %q is not under %s", v.Name, e.Error(), path)
				}
			}
		}
	})
}
