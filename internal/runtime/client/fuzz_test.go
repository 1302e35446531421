package client

import (
	"strings"
	"testing"

	"sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

func fuzzCatalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	cat := catalog.New()
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
	f.Add([]byte(`{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"DiscoveryResponse","status":"Success","handlers":[{"name":"vars","requestHook":{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","hook":"DiscoverVariables"},"timeoutSeconds":5,"failurePolicy":"Ignore"}]}`))
	f.Add([]byte(`{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"DiscoveryResponse","status":"Success","handlers":[{"name":"a.b","requestHook":{"apiVersion":"x/y/z","hook":""},"timeoutSeconds":-1}]}`))
	f.Add([]byte(`{"kind":"DiscoveryResponse"}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`<html>`))
	cat := fuzzCatalog(f)
	want, _ := cat.Response(catalog.GroupVersionHook{Group: "hooks.runtime.cluster.x-k8s.io", Version: "v1alpha1", Hook: "Discovery"})
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

// FuzzDiscoverVariablesResponse checks that decoding a DiscoverVariables
// answer never panics and accepts only the expected kind.
func FuzzDiscoverVariablesResponse(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"DiscoverVariablesResponse","status":"Success","variables":[{"name":"size","required":true,"schema":{"openAPIV3Schema":{"type":"string","default":"s"}}}]}`))
	f.Add([]byte(`{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"DiscoverVariablesResponse","status":"Failure","message":"no"}`))
	f.Add([]byte(`{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"DiscoveryResponse","status":"Success"}`))
	f.Add([]byte(`{"variables":[{"schema":{"openAPIV3Schema":{"properties":{"a":{"items":{}}}}}}]}`))
	cat := fuzzCatalog(f)
	want, _ := cat.Response(catalog.GroupVersionHook{Group: "hooks.runtime.cluster.x-k8s.io", Version: "v1alpha1", Hook: "DiscoverVariables"})
	f.Fuzz(func(t *testing.T, data []byte) {
		response := &runtimehooksv1.DiscoverVariablesResponse{}
		if err := decodeResponse(data, want, response); err != nil {
			return
		}
		if response.Kind != "DiscoverVariablesResponse" {
			t.Fatalf("accepted kind %q", response.Kind)
		}
	})
}
