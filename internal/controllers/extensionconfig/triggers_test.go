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
	"context"
	"crypto/sha256"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/event"

	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
)

// The drop-in discovers when Cluster API's controller does for anything a
// user does, and for nothing only we do: one Discovery for the create, one
// for each update of labels, annotations or spec, one for a status another
// writer changed, and none for our own status writes.
func TestReconcile_DiscoverOnEveryChangeRunsDiscoveryForWhatUsersDoAndNotForOurWrites(t *testing.T) {
	env.Skip(t)
	startController(t, rtclient.Options{}, 0)
	ext := startExtension(t)
	name := uniqueName("every")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}, nil)
	waitDiscovered(t, name, metav1.ConditionTrue)
	discoveries := func() int64 { return ext.Server.Calls()["Discovery"] }
	// Our status write after the first Discovery has come back as an
	// event by now, and it ran none.
	afterQueuedEvents(t)
	if n := discoveries(); n != 1 {
		t.Fatalf("creating a config ran %d Discovery calls, want 1", n)
	}

	steps := []struct {
		name   string
		change func()
	}{
		{"a label", func() {
			updateExtensionConfig(t, name, func(e *runtimev1.ExtensionConfig) { e.Labels = map[string]string{"team": "a"} })
		}},
		{"a checksum annotation, as Helm and Argo CD write", func() {
			updateExtensionConfig(t, name, func(e *runtimev1.ExtensionConfig) {
				e.Annotations = map[string]string{"checksum/config": "1"}
			})
		}},
		{"the settings", func() {
			updateExtensionConfig(t, name, func(e *runtimev1.ExtensionConfig) { e.Spec.Settings = map[string]string{"k": "v"} })
		}},
		{"a status another writer changed", func() {
			e := getExtensionConfig(t, name)
			e.Status.Handlers = e.Status.Handlers[:1]
			meta.SetStatusCondition(&e.Status.Conditions, metav1.Condition{
				Type: runtimev1.ExtensionConfigDiscoveredCondition, Status: metav1.ConditionFalse, Reason: "Elsewhere", Message: "another writer",
			})
			if err := env.Client.Status().Update(context.Background(), e); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for i, step := range steps {
		step.change()
		want := int64(i + 2)
		polltest.Eventually(t, eventually, step.name+" runs one Discovery", func() (bool, string) {
			return discoveries() >= want, fmt.Sprintf("%d Discovery calls", discoveries())
		})
		afterQueuedEvents(t)
		if n := discoveries(); n != want {
			t.Errorf("after %s: %d Discovery calls, want %d: our own status write must run none", step.name, n, want)
		}
	}
	// The other writer's status is healed.
	got := waitDiscovered(t, name, metav1.ConditionTrue)
	if len(got.Status.Handlers) != 3 {
		t.Errorf("status after another writer's: %d handlers, want the 3 discovered", len(got.Status.Handlers))
	}
}

// A resync (an update with the same resourceVersion), the echo of our own
// status write, and our caBundle injection alone pass nothing.
func TestEveryChangePredicate_DropsWhatOnlyWeCause(t *testing.T) {
	r := &Reconciler{}
	p := r.everyChangePredicate()
	base := &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: "x", ResourceVersion: "10", Generation: 1}}

	if p.Update(event.UpdateEvent{ObjectOld: base, ObjectNew: base.DeepCopy()}) {
		t.Error("a resync passed")
	}
	if r.takeDiscoveryRequest("x") {
		t.Error("a resync asked for Discovery")
	}

	ours := base.DeepCopy()
	ours.ResourceVersion = "11"
	ours.Status.Handlers = []runtimev1.ExtensionHandler{{Name: "h.x"}}
	r.settle(ours)
	if p.Update(event.UpdateEvent{ObjectOld: base, ObjectNew: ours}) {
		t.Error("the echo of our own status write passed")
	}
	// Our writes at 11 and 12 (settled), and the event of the one at 11
	// arriving late.
	ours2 := ours.DeepCopy()
	ours2.ResourceVersion = "12"
	ours2.Status.Handlers = []runtimev1.ExtensionHandler{{Name: "h2.x"}}
	r.settle(ours2)
	if p.Update(event.UpdateEvent{ObjectOld: base, ObjectNew: ours}) {
		t.Error("the late echo of a write older than our last passed")
	}
	r.settle(ours)

	finalized := ours.DeepCopy()
	finalized.ResourceVersion = "14"
	finalized.Finalizers = []string{"example.com/hold"}
	if !p.Update(event.UpdateEvent{ObjectOld: ours, ObjectNew: finalized}) || !r.takeDiscoveryRequest("x") {
		t.Error("a finalizer added did not pass and ask for Discovery")
	}
	rewritten := ours.DeepCopy()
	rewritten.ResourceVersion = "15"
	rewritten.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "someone"}}
	if p.Update(event.UpdateEvent{ObjectOld: ours, ObjectNew: rewritten}) {
		t.Error("a write that changed only managedFields passed")
	}

	theirs := ours.DeepCopy()
	theirs.ResourceVersion = "12"
	theirs.Status.Handlers = nil
	if !p.Update(event.UpdateEvent{ObjectOld: ours, ObjectNew: theirs}) || !r.takeDiscoveryRequest("x") {
		t.Error("a status another writer changed did not pass and ask for Discovery")
	}
	if r.takeDiscoveryRequest("x") {
		t.Error("a request for Discovery was taken twice")
	}

	injected := ours.DeepCopy()
	injected.ResourceVersion = "13"
	injected.Generation = 2
	injected.Spec.ClientConfig.CABundle = []byte("ca")
	r.injecting.Store("x", sha256.Sum256(injected.Spec.ClientConfig.CABundle))
	if p.Update(event.UpdateEvent{ObjectOld: ours, ObjectNew: injected}) {
		t.Error("our own caBundle injection passed")
	}

	if !p.Create(event.CreateEvent{Object: base}) || !r.takeDiscoveryRequest("x") {
		t.Error("a create did not pass and ask for Discovery")
	}
}
