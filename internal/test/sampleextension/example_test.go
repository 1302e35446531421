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
	"fmt"
	"net/http"
	"strings"

	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

// A test starts an extension over HTTPS and calls Discovery the way Cluster
// API does, trusting only the CA it was given.
func ExampleStartTLS() {
	s := sampleextension.New(sampleextension.Options{})
	url, caPEM, stop, err := sampleextension.StartTLS(s)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	tlsConfig, err := sampleextension.ClientTLSConfig(caPEM)
	if err != nil {
		fmt.Println(err)
		return
	}
	transport := &http.Transport{TLSClientConfig: tlsConfig}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport}

	resp, err := client.Post(url+sampleextension.DiscoveryPath, "application/json",
		strings.NewReader(`{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"DiscoveryRequest"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var discovery runtimehooksv1.DiscoveryResponse
	if err := json.NewDecoder(resp.Body).Decode(&discovery); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(discovery.Kind, discovery.Status)
	for _, h := range discovery.Handlers {
		fmt.Println(h.Name, h.RequestHook.Hook)
	}
	fmt.Println(s.Calls())
	// Output:
	// DiscoveryResponse Success
	// discover-variables DiscoverVariables
	// generate-patches GeneratePatches
	// validate-topology ValidateTopology
	// map[Discovery:1]
}
