package contract

import (
	"strings"
	"testing"
)

func TestCRDName_IsTheLowerCasePluralDotGroup(t *testing.T) {
	for kind, want := range map[string]string{
		"DockerClusterTemplate":        "dockerclustertemplates.infrastructure.cluster.x-k8s.io",
		"KubeadmConfigTemplate":        "kubeadmconfigtemplates.infrastructure.cluster.x-k8s.io",
		"GenericInfrastructureMachine": "genericinfrastructuremachines.infrastructure.cluster.x-k8s.io",
	} {
		if got := CRDName("infrastructure.cluster.x-k8s.io", kind); got != want {
			t.Errorf("CRDName(%s) = %s, want %s", kind, got, want)
		}
	}
}

func TestLatestAPIVersion_TakesTheNewestVersionOfTheNewestContract(t *testing.T) {
	tests := []struct {
		labels  map[string]string
		want    string
		wantErr string
	}{
		{map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta2"}, "v1beta2", ""},
		{map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta1_v1beta2"}, "v1beta2", ""},
		{map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta2_v1alpha4_v1"}, "v1", ""},
		// Only a v1beta1 provider: still usable, at its newest version.
		{map[string]string{"cluster.x-k8s.io/v1beta1": "v1alpha4_v1beta1"}, "v1beta1", ""},
		// The v1beta2 contract wins over v1beta1 whatever the versions.
		{map[string]string{"cluster.x-k8s.io/v1beta1": "v2", "cluster.x-k8s.io/v1beta2": "v1beta2"}, "v1beta2", ""},
		{map[string]string{"cluster.x-k8s.io/v1beta2": ""}, "", "none of the labels"},
		{map[string]string{"cluster.x-k8s.io/v1alpha4": "v1alpha4"}, "", "none of the labels"},
		{nil, "", "none of the labels"},
	}
	for _, tt := range tests {
		got, err := LatestAPIVersion(tt.labels, "crd")
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%v: got %q, %v; want error with %q", tt.labels, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%v: got %q, %v; want %q", tt.labels, got, err, tt.want)
		}
	}
}
