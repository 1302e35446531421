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
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
)

// caSecretKeys indexes an ExtensionConfig by the Secret its CA annotation
// names, exactly as written, so a Secret event finds it by
// "<namespace>/<name>".
func TestCASecretKeys(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string
		want        []string
	}{
		{"no annotations", nil, nil},
		{"other annotations", map[string]string{"team": "a"}, nil},
		{"a secret", map[string]string{runtimev1.InjectCAFromSecretAnnotation: "certs/ext-ca"}, []string{"certs/ext-ca"}},
		{"an empty value is indexed as written", map[string]string{runtimev1.InjectCAFromSecretAnnotation: ""}, []string{""}},
	}
	for _, tt := range tests {
		ext := &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: "ext", Annotations: tt.annotations}}
		if got := caSecretKeys(ext); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: caSecretKeys = %q, want %q", tt.name, got, tt.want)
		}
	}
}
