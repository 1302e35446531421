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

package extensionindex

import (
	"reflect"
	"testing"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

func classWithPatches(patches ...clusterv1.ClusterClassPatch) *clusterv1.ClusterClass {
	return &clusterv1.ClusterClass{Spec: clusterv1.ClusterClassSpec{Patches: patches}}
}

func TestReferences_ExtractsAllThreeFieldsAndReportsMalformedNames(t *testing.T) {
	cc := classWithPatches(
		clusterv1.ClusterClassPatch{Name: "inline", Definitions: []clusterv1.PatchDefinition{{}}},
		clusterv1.ClusterClassPatch{Name: "a", External: &clusterv1.ExternalPatchDefinition{
			GeneratePatchesExtension:   "gen.ext-a",
			ValidateTopologyExtension:  "val.ext-a",
			DiscoverVariablesExtension: "vars.ext.with.dots",
			Settings:                   map[string]string{"k": "v"},
		}},
		clusterv1.ClusterClassPatch{Name: "b", External: &clusterv1.ExternalPatchDefinition{
			GeneratePatchesExtension:   "nodot",
			DiscoverVariablesExtension: ".ext-b",
			ValidateTopologyExtension:  "val.",
		}},
	)
	refs, malformed := References(cc)
	wantRefs := []Reference{
		{Patch: "a", Field: FieldGeneratePatches, Hook: "GeneratePatches", Handler: "gen.ext-a", ExtensionConfig: "ext-a", Settings: map[string]string{"k": "v"}},
		{Patch: "a", Field: FieldValidateTopology, Hook: "ValidateTopology", Handler: "val.ext-a", ExtensionConfig: "ext-a", Settings: map[string]string{"k": "v"}},
		{Patch: "a", Field: FieldDiscoverVariables, Hook: "DiscoverVariables", Handler: "vars.ext.with.dots", ExtensionConfig: "ext.with.dots", Settings: map[string]string{"k": "v"}},
	}
	if !reflect.DeepEqual(refs, wantRefs) {
		t.Errorf("refs =\n%+v\nwant\n%+v", refs, wantRefs)
	}
	wantMalformed := []MalformedReference{
		{Patch: "b", Field: FieldGeneratePatches, Value: "nodot"},
		{Patch: "b", Field: FieldValidateTopology, Value: "val."},
		{Patch: "b", Field: FieldDiscoverVariables, Value: ".ext-b"},
	}
	if !reflect.DeepEqual(malformed, wantMalformed) {
		t.Errorf("malformed =\n%+v\nwant\n%+v", malformed, wantMalformed)
	}
	if got := ExtensionConfigNames(cc); !reflect.DeepEqual(got, []string{"ext-a", "ext.with.dots"}) {
		t.Errorf("ExtensionConfigNames = %v", got)
	}
	if got := HandlerNames(cc); !reflect.DeepEqual(got, []string{"gen.ext-a", "val.ext-a", "vars.ext.with.dots"}) {
		t.Errorf("HandlerNames = %v", got)
	}
}

func TestReferences_NoExternalPatchesMeansNoKeys(t *testing.T) {
	cc := classWithPatches(clusterv1.ClusterClassPatch{Name: "inline"})
	if refs, malformed := References(cc); refs != nil || malformed != nil {
		t.Errorf("got %v %v", refs, malformed)
	}
	if keys := extensionConfigKeys(cc); keys != nil {
		t.Errorf("index keys = %v, want none", keys)
	}
}

func TestReferences_SharedHandlerIsIndexedOnce(t *testing.T) {
	cc := classWithPatches(
		clusterv1.ClusterClassPatch{Name: "one", External: &clusterv1.ExternalPatchDefinition{DiscoverVariablesExtension: "vars.ext"}},
		clusterv1.ClusterClassPatch{Name: "two", External: &clusterv1.ExternalPatchDefinition{DiscoverVariablesExtension: "vars.ext"}},
	)
	if got := handlerKeys(cc); !reflect.DeepEqual(got, []string{"vars.ext"}) {
		t.Errorf("handler keys = %v", got)
	}
}
