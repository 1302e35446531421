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
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

func TestDiscoveryFresh(t *testing.T) {
	discovered := func() *runtimev1.ExtensionConfig {
		ext := &runtimev1.ExtensionConfig{
			ObjectMeta: metav1.ObjectMeta{Name: "ext"},
			Spec:       runtimev1.ExtensionConfigSpec{ClientConfig: runtimev1.ClientConfig{URL: "https://127.0.0.1:1", CABundle: []byte("ca")}},
		}
		ext.Status.Handlers = []runtimev1.ExtensionHandler{{Name: "a.ext", TimeoutSeconds: 10}}
		ext.Status.Conditions = []metav1.Condition{{Type: runtimev1.ExtensionConfigDiscoveredCondition, Status: metav1.ConditionTrue}}
		return ext
	}
	tests := []struct {
		name   string
		change func(*runtimev1.ExtensionConfig)
		age    time.Duration
		want   bool
	}{
		{"nothing it depends on changed", func(*runtimev1.ExtensionConfig) {}, time.Minute, true},
		{"settings and selector changed", func(e *runtimev1.ExtensionConfig) {
			e.Spec.Settings = map[string]string{"k": "v"}
			e.Spec.NamespaceSelector = &metav1.LabelSelector{}
		}, time.Minute, true},
		{"the CA changed", func(e *runtimev1.ExtensionConfig) { e.Spec.ClientConfig.CABundle = []byte("other") }, time.Minute, false},
		{"the URL changed", func(e *runtimev1.ExtensionConfig) { e.Spec.ClientConfig.URL = "https://127.0.0.1:2" }, time.Minute, false},
		{"rediscover added, even empty", func(e *runtimev1.ExtensionConfig) {
			e.Annotations = map[string]string{userfacing.RediscoverAnnotation: ""}
		}, time.Minute, false},
		{"status holds other handlers (its patch failed, or someone else wrote it)", func(e *runtimev1.ExtensionConfig) {
			e.Status.Handlers = []runtimev1.ExtensionHandler{{Name: "b.ext"}}
		}, time.Minute, false},
		{"not Discovered", func(e *runtimev1.ExtensionConfig) { e.Status.Conditions[0].Status = metav1.ConditionFalse }, time.Minute, false},
		{"the interval passed", func(*runtimev1.ExtensionConfig) {}, 10 * time.Minute, false},
	}
	for _, tt := range tests {
		r := &Reconciler{}
		r.discovered.Store("ext", discoveryOf(discovered(), time.Now().Add(-tt.age)))
		ext := discovered()
		tt.change(ext)
		if _, fresh := r.discoveryFresh(ext, 10*time.Minute); fresh != tt.want {
			t.Errorf("%s: fresh %v, want %v", tt.name, fresh, tt.want)
		}
	}
	if _, fresh := (&Reconciler{}).discoveryFresh(discovered(), time.Hour); fresh {
		t.Error("a config never discovered by this controller reads as fresh")
	}
}
