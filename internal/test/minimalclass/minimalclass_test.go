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

package minimalclass

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/config/crd"
)

// The load tool's and the drills' local control plane installs the template
// CRDs embedded in config/crd, and the tests install what TemplateCRDs
// builds: the two must be the same CRDs, or a ClusterClass that passes the
// tests could fail in a load or drill run.
func TestTemplateCRDs_AreTheOnesEmbeddedForLocalRuns(t *testing.T) {
	embedded, err := crd.TemplateDefinitions()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, e := range embedded {
		byName[e.Name] = e
	}
	built := TemplateCRDs()
	if len(embedded) != len(built) {
		t.Errorf("config/crd embeds %d template CRDs, minimalclass builds %d", len(embedded), len(built))
	}
	for _, b := range built {
		e, ok := byName[b.Name]
		if !ok {
			t.Errorf("config/crd/templates lacks %s", b.Name)
			continue
		}
		// The files carry apiVersion and kind, as any manifest does; the
		// builder leaves them to whoever applies the CRD.
		e = e.DeepCopy()
		e.TypeMeta = b.TypeMeta
		if !apiequality.Semantic.DeepEqual(b, e) {
			builtYAML, _ := yaml.Marshal(b)
			embeddedYAML, _ := yaml.Marshal(e)
			t.Errorf("%s: the embedded file differs from what CRD builds.\nbuilt:\n%s\nembedded:\n%s", b.Name, builtYAML, embeddedYAML)
		}
	}
}
