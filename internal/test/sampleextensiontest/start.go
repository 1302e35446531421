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

package sampleextensiontest

import (
	"testing"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

// Start serves a new sample extension with opts until the test ends.
func Start(t testing.TB, opts sampleextension.Options) *sampleextension.Running {
	t.Helper()
	s := sampleextension.New(opts)
	url, ca, stop, err := sampleextension.StartTLS(s)
	if err != nil {
		t.Fatalf("start sample extension: %v", err)
	}
	t.Cleanup(stop)
	return &sampleextension.Running{Server: s, URL: url, CA: ca}
}

// StartWithVariables serves a new sample extension until the test ends,
// its DiscoverVariablesHandler answering vars (none when vars is empty):
// the extension the controller tests point ExtensionConfigs at.
func StartWithVariables(t testing.TB, vars ...clusterv1.ClusterClassVariable) *sampleextension.Running {
	t.Helper()
	return Start(t, sampleextension.Options{Variables: map[string][]clusterv1.ClusterClassVariable{
		sampleextension.DiscoverVariablesHandler: vars,
	}})
}
