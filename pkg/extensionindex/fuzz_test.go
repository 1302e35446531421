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
	"strings"
	"testing"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// The seeds of the fuzz targets are files under testdata/fuzz/<target>/, so
// that `go test` replays them and `make fuzz` starts from them.

// FuzzReferences builds ClusterClasses from arbitrary handler names: every
// non-empty name is either a reference whose parts join back to it or a
// reported malformed one, never dropped and never a panic.
func FuzzReferences(f *testing.F) {
	f.Fuzz(func(t *testing.T, generate, validate, discover string) {
		cc := &clusterv1.ClusterClass{Spec: clusterv1.ClusterClassSpec{Patches: []clusterv1.ClusterClassPatch{{
			Name: "p",
			External: &clusterv1.ExternalPatchDefinition{
				GeneratePatchesExtension: generate, ValidateTopologyExtension: validate, DiscoverVariablesExtension: discover,
			},
		}}}}
		refs, malformed := References(cc)
		nonEmpty := 0
		for _, name := range []string{generate, validate, discover} {
			if name != "" {
				nonEmpty++
			}
		}
		if len(refs)+len(malformed) != nonEmpty {
			t.Fatalf("%d names, %d references and %d malformed", nonEmpty, len(refs), len(malformed))
		}
		for _, r := range refs {
			handler, _, _ := strings.Cut(r.Handler, ".")
			if handler == "" || r.ExtensionConfig == "" || handler+"."+r.ExtensionConfig != r.Handler {
				t.Fatalf("reference %+v does not split back into its name", r)
			}
		}
		for _, m := range malformed {
			if _, ok := registration.ExtensionConfigOf(m.Value); ok {
				t.Fatalf("%q reported malformed but parses", m.Value)
			}
		}
		// The index keys are exactly the parsed references.
		if len(HandlerNames(cc)) > len(refs) {
			t.Fatalf("more index keys than references")
		}
	})
}
