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
	"fmt"
	"sort"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// Field names a ClusterClass patch can reference a handler from.
const (
	FieldGeneratePatches   = "generatePatchesExtension"
	FieldValidateTopology  = "validateTopologyExtension"
	FieldDiscoverVariables = "discoverVariablesExtension"
)

// The hooks the handlers of the fields must serve, named as Cluster API's
// catalog names them.
var (
	generatePatchesHook   = runtimecatalog.HookName(runtimehooksv1.GeneratePatches)
	validateTopologyHook  = runtimecatalog.HookName(runtimehooksv1.ValidateTopology)
	discoverVariablesHook = runtimecatalog.HookName(runtimehooksv1.DiscoverVariables)
)

// Reference is one handler reference in a ClusterClass.
type Reference struct {
	// Patch is the name of the patch holding the reference.
	Patch string
	// Field is one of the Field* constants.
	Field string
	// Hook is the hook the handler of Field must serve, such as
	// "DiscoverVariables" for FieldDiscoverVariables.
	Hook string
	// Handler is the full handler name, `<handler>.<config>`.
	Handler string
	// ExtensionConfig is the config part of Handler.
	ExtensionConfig string
	// Settings are the patch's external settings.
	Settings map[string]string
}

// MalformedReference is a reference whose name is not `<handler>.<config>`.
type MalformedReference struct {
	Patch, Field, Value string
}

func (m MalformedReference) Error() string {
	return fmt.Sprintf("patch %q: %s %q is not of the form <handler>.<extensionconfig>", m.Patch, m.Field, m.Value)
}

// References returns every handler reference of a ClusterClass in patch
// order, and the malformed ones separately.
func References(cc *clusterv1.ClusterClass) ([]Reference, []MalformedReference) {
	var refs []Reference
	var malformed []MalformedReference
	for _, patch := range cc.Spec.Patches {
		if patch.External == nil {
			continue
		}
		for _, f := range []struct{ field, hook, value string }{
			{FieldGeneratePatches, generatePatchesHook, patch.External.GeneratePatchesExtension},
			{FieldValidateTopology, validateTopologyHook, patch.External.ValidateTopologyExtension},
			{FieldDiscoverVariables, discoverVariablesHook, patch.External.DiscoverVariablesExtension},
		} {
			if f.value == "" {
				continue
			}
			config, ok := registration.ExtensionConfigOf(f.value)
			if !ok {
				malformed = append(malformed, MalformedReference{Patch: patch.Name, Field: f.field, Value: f.value})
				continue
			}
			refs = append(refs, Reference{
				Patch: patch.Name, Field: f.field, Hook: f.hook, Handler: f.value, ExtensionConfig: config, Settings: patch.External.Settings,
			})
		}
	}
	return refs, malformed
}

// ExtensionConfigNames returns the distinct, sorted config names a
// ClusterClass references.
func ExtensionConfigNames(cc *clusterv1.ClusterClass) []string {
	refs, _ := References(cc)
	return distinct(refs, func(r Reference) string { return r.ExtensionConfig })
}

// HandlerNames returns the distinct, sorted full handler names a
// ClusterClass references.
func HandlerNames(cc *clusterv1.ClusterClass) []string {
	refs, _ := References(cc)
	return distinct(refs, func(r Reference) string { return r.Handler })
}

func distinct(refs []Reference, key func(Reference) string) []string {
	if len(refs) == 0 {
		return nil
	}
	seen := make(map[string]struct{}, len(refs))
	out := make([]string, 0, len(refs))
	for _, r := range refs {
		k := key(r)
		if _, ok := seen[k]; ok {
			continue
		}
		seen[k] = struct{}{}
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
