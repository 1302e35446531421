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

package extensionconfig

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
)

// configAt is an ExtensionConfig at a generation, calling url, whose
// status says whether a Discovery at that generation succeeded.
func configAt(uid types.UID, generation int64, url string, discovered bool) *runtimev1.ExtensionConfig {
	ext := &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "ext", UID: uid, Generation: generation},
		Spec:       runtimev1.ExtensionConfigSpec{ClientConfig: runtimev1.ClientConfig{URL: url}},
	}
	status := metav1.ConditionFalse
	if discovered {
		status = metav1.ConditionTrue
	}
	ext.Status.Conditions = []metav1.Condition{{Type: runtimev1.ExtensionConfigDiscoveredCondition, Status: status, ObservedGeneration: generation}}
	return ext
}

func TestProvenClientConfigs(t *testing.T) {
	tests := []struct {
		name    string
		seen    []*runtimev1.ExtensionConfig
		forget  *runtimev1.ExtensionConfig
		current *runtimev1.ExtensionConfig
		wantURL string
	}{
		{name: "nothing seen: the spec", current: configAt("a", 2, "https://typo", false), wantURL: "https://typo"},
		{name: "a typo after a proven clientConfig: the proven one",
			seen: []*runtimev1.ExtensionConfig{configAt("a", 1, "https://good", true)}, current: configAt("a", 2, "https://typo", false), wantURL: "https://good"},
		{name: "the typo proven since: the spec",
			seen:    []*runtimev1.ExtensionConfig{configAt("a", 1, "https://good", true), configAt("a", 2, "https://moved", true)},
			current: configAt("a", 2, "https://moved", false), wantURL: "https://moved"},
		{name: "an older event does not undo a newer proof",
			seen:    []*runtimev1.ExtensionConfig{configAt("a", 2, "https://moved", true), configAt("a", 1, "https://good", true)},
			current: configAt("a", 3, "https://typo", false), wantURL: "https://moved"},
		{name: "a Discovered condition of an older generation proves nothing",
			seen: []*runtimev1.ExtensionConfig{func() *runtimev1.ExtensionConfig {
				e := configAt("a", 1, "https://good", true)
				e.Generation, e.Spec.ClientConfig.URL = 2, "https://typo"
				return e
			}()},
			current: configAt("a", 2, "https://typo", false), wantURL: "https://typo"},
		{name: "a config re-created under the name: the spec",
			seen: []*runtimev1.ExtensionConfig{configAt("a", 5, "https://good", true)}, current: configAt("b", 1, "https://new", false), wantURL: "https://new"},
		{name: "the deleted object forgotten",
			seen: []*runtimev1.ExtensionConfig{configAt("a", 1, "https://good", true)}, forget: configAt("a", 1, "https://good", true),
			current: configAt("a", 2, "https://typo", false), wantURL: "https://typo"},
		{name: "the delete of an older object under the name forgets nothing",
			seen: []*runtimev1.ExtensionConfig{configAt("b", 1, "https://good", true)}, forget: configAt("a", 1, "https://old", true),
			current: configAt("b", 2, "https://typo", false), wantURL: "https://good"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p provenClientConfigs
			for _, ext := range tt.seen {
				p.observe(ext)
			}
			if tt.forget != nil {
				p.forgetObject(tt.forget)
			}
			spec := tt.current.Spec.ClientConfig.URL
			if served := p.serving(tt.current); served.Spec.ClientConfig.URL != tt.wantURL {
				t.Errorf("calls go to %s, want %s", served.Spec.ClientConfig.URL, tt.wantURL)
			}
			if tt.current.Spec.ClientConfig.URL != spec {
				t.Error("serving changed the object it was given")
			}
		})
	}
}
