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
