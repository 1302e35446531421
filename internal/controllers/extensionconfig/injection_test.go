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
	"crypto/sha256"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/event"
)

// notOwnInjection drops exactly the update event of a caBundle this
// controller injected when nothing else changed, and forgets the injection
// then; every other event passes and leaves the note in place.
func TestNotOwnInjection(t *testing.T) {
	ours, theirs := []byte("our CA"), []byte("their CA")
	tests := []struct {
		name         string
		injecting    map[string][]byte // preloaded: config name to the bundle being injected
		oldCA, newCA []byte
		change       func(*runtimev1.ExtensionConfig) // what else the update changed
		wantPass     bool
	}{
		{name: "our bundle and nothing else", injecting: map[string][]byte{"ext": ours}, newCA: ours},
		{name: "our bundle replacing an older one", injecting: map[string][]byte{"ext": ours}, oldCA: theirs, newCA: ours},
		// A relist merges our write with a user's: Cluster API discovers
		// on the user's label or finalizer change, and so do we.
		{name: "our bundle with a label change", injecting: map[string][]byte{"ext": ours}, newCA: ours, wantPass: true,
			change: func(e *runtimev1.ExtensionConfig) { e.Labels = map[string]string{"team": "a"} }},
		{name: "our bundle with a finalizer change", injecting: map[string][]byte{"ext": ours}, newCA: ours, wantPass: true,
			change: func(e *runtimev1.ExtensionConfig) { e.Finalizers = []string{"example.com/keep"} }},
		{name: "nothing injected", newCA: ours, wantPass: true},
		{name: "an injection into another config", injecting: map[string][]byte{"other": ours}, newCA: ours, wantPass: true},
		{name: "a bundle not ours", injecting: map[string][]byte{"ext": ours}, newCA: theirs, wantPass: true},
		{name: "our bundle with a new URL", injecting: map[string][]byte{"ext": ours}, newCA: ours, wantPass: true,
			change: func(e *runtimev1.ExtensionConfig) { e.Spec.ClientConfig.URL = "https://ext:8443" }},
		{name: "our bundle with new settings", injecting: map[string][]byte{"ext": ours}, newCA: ours, wantPass: true,
			change: func(e *runtimev1.ExtensionConfig) { e.Spec.Settings = map[string]string{"a": "b"} }},
		{name: "our bundle with a new namespaceSelector", injecting: map[string][]byte{"ext": ours}, newCA: ours, wantPass: true,
			change: func(e *runtimev1.ExtensionConfig) { e.Spec.NamespaceSelector = &metav1.LabelSelector{} }},
		{name: "our bundle with an annotation change", injecting: map[string][]byte{"ext": ours}, newCA: ours, wantPass: true,
			change: func(e *runtimev1.ExtensionConfig) { e.Annotations["team"] = "a" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Reconciler{}
			for name, ca := range tt.injecting {
				r.injecting.Store(name, sha256.Sum256(ca))
			}
			oldExt := &runtimev1.ExtensionConfig{
				ObjectMeta: metav1.ObjectMeta{Name: "ext", Annotations: map[string]string{runtimev1.InjectCAFromSecretAnnotation: "certs/ext-ca"}},
				Spec:       runtimev1.ExtensionConfigSpec{ClientConfig: runtimev1.ClientConfig{URL: "https://ext:9443", CABundle: tt.oldCA}},
			}
			newExt := oldExt.DeepCopy()
			newExt.Spec.ClientConfig.CABundle = tt.newCA
			if tt.change != nil {
				tt.change(newExt)
			}
			if got := r.notOwnInjection(event.UpdateEvent{ObjectOld: oldExt, ObjectNew: newExt}); got != tt.wantPass {
				t.Errorf("notOwnInjection = %t, want %t", got, tt.wantPass)
			}
			// Only a dropped event uses the note up; a passed one may
			// still be followed by the event of our own write.
			_, noted := r.injecting.Load("ext")
			if wantNoted := tt.injecting["ext"] != nil && tt.wantPass; noted != wantNoted {
				t.Errorf("injection into ext still noted: %t, want %t", noted, wantNoted)
			}
		})
	}
}

// An update of anything but ExtensionConfigs is not this predicate's to
// drop.
func TestNotOwnInjection_PassesOtherKinds(t *testing.T) {
	r := &Reconciler{}
	r.injecting.Store("ext", sha256.Sum256(nil))
	other := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "ext"}}
	if !r.notOwnInjection(event.UpdateEvent{ObjectOld: other, ObjectNew: other.DeepCopy()}) {
		t.Error("an update of a Secret was dropped")
	}
}
