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

package crd

import "testing"

func TestDefinitions_ServesClusterClassAndExtensionConfigV1beta2(t *testing.T) {
	crds, err := Definitions()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"clusterclasses.cluster.x-k8s.io":           false,
		"extensionconfigs.runtime.cluster.x-k8s.io": false,
	}
	for _, crd := range crds {
		if _, ok := want[crd.Name]; !ok {
			t.Errorf("unexpected CRD %s", crd.Name)
			continue
		}
		want[crd.Name] = true
		served := false
		for _, v := range crd.Spec.Versions {
			if v.Name == "v1beta2" && v.Served && v.Storage {
				served = true
			}
		}
		if !served {
			t.Errorf("%s does not serve and store v1beta2", crd.Name)
		}
	}
	for name, seen := range want {
		if !seen {
			t.Errorf("missing CRD %s", name)
		}
	}
}
