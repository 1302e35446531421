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

package contract

import (
	"context"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
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

func TestReadCRD_NamesAndReadsTheCRDOfAKind(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	const group = "infrastructure.cluster.x-k8s.io"
	labels := map[string]string{Label("v1beta2"): "v1beta1_v1beta2"}
	reader := fake.NewClientBuilder().WithScheme(scheme).WithObjects(&apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "dockerclustertemplates." + group, Labels: labels},
	}).Build()
	tests := []struct {
		kind         string
		wantName     string
		wantNotFound bool
	}{
		{kind: "DockerClusterTemplate", wantName: "dockerclustertemplates." + group},
		// The name comes back with the error, for the caller's message.
		{kind: "NoSuchTemplate", wantName: "nosuchtemplates." + group, wantNotFound: true},
	}
	for _, tt := range tests {
		name, crd, err := ReadCRD(context.Background(), reader, schema.GroupKind{Group: group, Kind: tt.kind})
		if name != tt.wantName {
			t.Errorf("%s: name %q, want %q", tt.kind, name, tt.wantName)
		}
		if tt.wantNotFound {
			if !apierrors.IsNotFound(err) || crd != nil {
				t.Errorf("%s: got %v, %v; want no CRD and a NotFound error", tt.kind, crd, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.kind, err)
		}
		if crd.Name != tt.wantName || crd.Labels[Label("v1beta2")] != labels[Label("v1beta2")] {
			t.Errorf("%s: read %s with labels %v, want %s with %v", tt.kind, crd.Name, crd.Labels, tt.wantName, labels)
		}
	}
}
