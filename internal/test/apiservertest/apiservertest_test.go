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

package apiservertest

import (
	"context"
	"os"
	"reflect"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var env *Env

func TestMain(m *testing.M) { os.Exit(Run(m, &env)) }

func TestSmoke_ClusterClassAndExtensionConfigRoundTripThroughTheAPIServer(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t, map[string]string{"team": "smoke"})

	ext := &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "smoke-" + ns},
		Spec: runtimev1.ExtensionConfigSpec{
			ClientConfig: runtimev1.ClientConfig{URL: "https://127.0.0.1:9443"},
			NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"team": "smoke"},
			},
			Settings: map[string]string{"size": "small"},
		},
	}
	if err := env.Client.Create(ctx, ext); err != nil {
		t.Fatalf("create ExtensionConfig: %v", err)
	}

	cc := &clusterv1.ClusterClass{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "smoke"},
		Spec: clusterv1.ClusterClassSpec{
			Infrastructure: clusterv1.InfrastructureClass{TemplateRef: clusterv1.ClusterClassTemplateReference{
				APIVersion: "infrastructure.cluster.x-k8s.io/v1beta2", Kind: "DockerClusterTemplate", Name: "smoke",
			}},
			ControlPlane: clusterv1.ControlPlaneClass{TemplateRef: clusterv1.ClusterClassTemplateReference{
				APIVersion: "controlplane.cluster.x-k8s.io/v1beta2", Kind: "KubeadmControlPlaneTemplate", Name: "smoke",
			}},
			Patches: []clusterv1.ClusterClassPatch{{
				Name: "discover",
				External: &clusterv1.ExternalPatchDefinition{
					DiscoverVariablesExtension: "discover-variables." + ext.Name,
					Settings:                   map[string]string{"size": "large"},
				},
			}},
		},
	}
	if err := env.Client.Create(ctx, cc); err != nil {
		t.Fatalf("create ClusterClass: %v", err)
	}

	gotExt := &runtimev1.ExtensionConfig{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(ext), gotExt); err != nil {
		t.Fatalf("get ExtensionConfig: %v", err)
	}
	if gotExt.Spec.ClientConfig.URL != ext.Spec.ClientConfig.URL ||
		gotExt.Spec.NamespaceSelector.MatchLabels["team"] != "smoke" ||
		gotExt.Spec.Settings["size"] != "small" {
		t.Errorf("ExtensionConfig spec did not round-trip: %+v", gotExt.Spec)
	}

	gotCC := &clusterv1.ClusterClass{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cc), gotCC); err != nil {
		t.Fatalf("get ClusterClass: %v", err)
	}
	if len(gotCC.Spec.Patches) != 1 || gotCC.Spec.Patches[0].External == nil ||
		gotCC.Spec.Patches[0].External.DiscoverVariablesExtension != "discover-variables."+ext.Name ||
		gotCC.Spec.Patches[0].External.Settings["size"] != "large" {
		t.Errorf("ClusterClass patches did not round-trip: %+v", gotCC.Spec.Patches)
	}

	// The status subresource is served: a status write sticks and does not
	// bump the generation.
	gotCC.Status.ObservedGeneration = gotCC.Generation
	gotCC.Status.Variables = []clusterv1.ClusterClassStatusVariable{{
		Name: "region",
		Definitions: []clusterv1.ClusterClassStatusVariableDefinition{{
			From:     "inline",
			Required: ptr.To(true),
			Schema:   clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{Type: "string"}},
		}},
	}}
	if err := env.Client.Status().Update(ctx, gotCC); err != nil {
		t.Fatalf("update ClusterClass status: %v", err)
	}
	after := &clusterv1.ClusterClass{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cc), after); err != nil {
		t.Fatal(err)
	}
	if len(after.Status.Variables) != 1 || after.Status.Variables[0].Name != "region" {
		t.Errorf("status.variables not stored: %+v", after.Status.Variables)
	}
	if after.Generation != gotCC.Generation {
		t.Errorf("a status write changed the generation from %d to %d", gotCC.Generation, after.Generation)
	}
}

func TestSmoke_InvalidExtensionConfigIsRejectedByTheCRDSchema(t *testing.T) {
	env.Skip(t)
	// A service reference without a name: the CRD's validation must refuse
	// it, which proves the generated schema (not a permissive stand-in) is
	// installed.
	ext := &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "no-client-config"},
		Spec: runtimev1.ExtensionConfigSpec{
			ClientConfig: runtimev1.ClientConfig{Service: runtimev1.ServiceReference{Namespace: "x"}},
		},
	}
	err := env.Client.Create(context.Background(), ext)
	if !apierrors.IsInvalid(err) {
		t.Fatalf("creating an ExtensionConfig whose service reference lacks a name: got %v, want Invalid", err)
	}
	// Invalid for that reason alone, not for another the schema has.
	want := []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.clientConfig.service.name"}}
	var got []metav1.StatusCause
	if details := err.(apierrors.APIStatus).Status().Details; details != nil {
		for _, c := range details.Causes {
			got = append(got, metav1.StatusCause{Type: c.Type, Field: c.Field})
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("refused for %+v, want %+v (%v)", got, want, err)
	}
}
