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
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

// Paths as Cluster API's runtime client builds them, spelt out so that the
// tests notice if the Server's routing drifts from the protocol.
const (
	hooksAPIVersion       = "hooks.runtime.cluster.x-k8s.io/v1alpha1"
	discoveryPath         = "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery"
	discoverVariablesPath = "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovervariables/discover-variables"
	generatePatchesPath   = "/hooks.runtime.cluster.x-k8s.io/v1alpha1/generatepatches/generate-patches"
	validateTopologyPath  = "/hooks.runtime.cluster.x-k8s.io/v1alpha1/validatetopology/validate-topology"
)

// requestKinds maps the paths of the default handlers to their request kinds.
var requestKinds = map[string]string{
	discoveryPath:         "DiscoveryRequest",
	discoverVariablesPath: "DiscoverVariablesRequest",
	generatePatchesPath:   "GeneratePatchesRequest",
	validateTopologyPath:  "ValidateTopologyRequest",
}

// extension serves s over HTTPS for the duration of the test and returns its
// URL and a client that trusts only its CA.
func extension(t *testing.T, s *sampleextension.Server) (string, *http.Client) {
	t.Helper()
	url, caPEM, stop, err := sampleextension.StartTLS(s)
	if err != nil {
		t.Fatalf("StartTLS: %v", err)
	}
	t.Cleanup(stop)
	return url, trustingClient(t, caPEM, 0)
}

// trustingClient returns a client whose only root is the CA in caPEM.
func trustingClient(t *testing.T, caPEM []byte, timeout time.Duration) *http.Client {
	t.Helper()
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: poolOf(t, caPEM), MinVersion: tls.VersionTLS12}}
	t.Cleanup(transport.CloseIdleConnections)
	return &http.Client{Transport: transport, Timeout: timeout}
}

// hookRequest is the body Cluster API sends for a hook, with settings.
func hookRequest(t *testing.T, kind string) []byte {
	t.Helper()
	body, err := json.Marshal(map[string]any{
		"apiVersion": hooksAPIVersion,
		"kind":       kind,
		"settings":   map[string]string{"origin": "test"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// response is what a call got.
type response struct {
	status      int
	contentType string
	body        []byte
}

// post calls path with body and returns the response, or the transport error.
func post(client *http.Client, url, path string, body []byte) (response, error) {
	resp, err := client.Post(url+path, "application/json", bytes.NewReader(body))
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, fmt.Errorf("read body of %s: %w", path, err)
	}
	return response{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: b}, nil
}

// callHook calls one of the default paths with a well-formed request and
// fails the test on transport errors.
func callHook(t *testing.T, client *http.Client, url, path string) response {
	t.Helper()
	kind, ok := requestKinds[path]
	if !ok {
		t.Fatalf("no request kind for %s", path)
	}
	resp, err := post(client, url, path, hookRequest(t, kind))
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	return resp
}

// decode unmarshals a response body, failing the test if it is not T.
func decode[T any](t *testing.T, r response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("decode %T from HTTP %d %q: %v", v, r.status, r.body, err)
	}
	return v
}

// stringVariables returns required string variables with the given names.
func stringVariables(names ...string) []clusterv1.ClusterClassVariable {
	vars := make([]clusterv1.ClusterClassVariable, 0, len(names))
	for _, n := range names {
		vars = append(vars, clusterv1.ClusterClassVariable{
			Name:     n,
			Required: ptr.To(true),
			Schema: clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{
				Type:        "string",
				Description: n + " of the test",
			}},
		})
	}
	return vars
}
