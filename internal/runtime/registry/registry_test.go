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

package registry

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

const hooksAPIVersion = "hooks.runtime.cluster.x-k8s.io/v1alpha1"

func extensionConfig(name string) *runtimev1.ExtensionConfig {
	return &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: runtimev1.ExtensionConfigSpec{
			ClientConfig: runtimev1.ClientConfig{URL: "https://ext.example:9443", CABundle: []byte("ca-1")},
			Settings:     map[string]string{"size": "small"},
		},
		Status: runtimev1.ExtensionConfigStatus{Handlers: []runtimev1.ExtensionHandler{
			{Name: "discover", RequestHook: runtimev1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "DiscoverVariables"}, TimeoutSeconds: 10, FailurePolicy: runtimev1.FailurePolicyFail},
			{Name: "patch", RequestHook: runtimev1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "GeneratePatches"}, TimeoutSeconds: 10, FailurePolicy: runtimev1.FailurePolicyFail},
		}},
	}
}

func handlerOf(t *testing.T, ext *runtimev1.ExtensionConfig, full string) Handler {
	t.Helper()
	handlers, _, err := HandlersFor(ext)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range handlers {
		if h.Name == full {
			return h
		}
	}
	t.Fatalf("no handler %s", full)
	return Handler{}
}

func TestFingerprint_ChangesExactlyWhenACallCouldChange(t *testing.T) {
	tests := []struct {
		name        string
		mutate      func(*runtimev1.ExtensionConfig)
		wantChanged bool
	}{
		{"url", func(e *runtimev1.ExtensionConfig) { e.Spec.ClientConfig.URL = "https://other:9443" }, true},
		{"service instead of url", func(e *runtimev1.ExtensionConfig) {
			e.Spec.ClientConfig.URL = ""
			e.Spec.ClientConfig.Service = runtimev1.ServiceReference{Namespace: "ns", Name: "ext"}
		}, true},
		{"ca bundle", func(e *runtimev1.ExtensionConfig) { e.Spec.ClientConfig.CABundle = []byte("ca-2") }, true},
		{"settings value", func(e *runtimev1.ExtensionConfig) { e.Spec.Settings["size"] = "large" }, true},
		{"settings key added", func(e *runtimev1.ExtensionConfig) { e.Spec.Settings["zone"] = "a" }, true},
		{"timeout", func(e *runtimev1.ExtensionConfig) { e.Status.Handlers[0].TimeoutSeconds = 20 }, true},
		{"failure policy", func(e *runtimev1.ExtensionConfig) { e.Status.Handlers[0].FailurePolicy = runtimev1.FailurePolicyIgnore }, true},
		{"hook version", func(e *runtimev1.ExtensionConfig) {
			e.Status.Handlers[0].RequestHook.APIVersion = "hooks.runtime.cluster.x-k8s.io/v1alpha2"
		}, true},
		{"namespace selector", func(e *runtimev1.ExtensionConfig) {
			e.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
		}, false},
		{"labels and annotations", func(e *runtimev1.ExtensionConfig) {
			e.Labels = map[string]string{"x": "y"}
			e.Annotations = map[string]string{"note": "z"}
			e.ResourceVersion = "42"
		}, false},
		{"another handler's timeout", func(e *runtimev1.ExtensionConfig) { e.Status.Handlers[1].TimeoutSeconds = 30 }, false},
		{"status conditions", func(e *runtimev1.ExtensionConfig) {
			e.Status.Conditions = []metav1.Condition{{Type: "Discovered", Status: metav1.ConditionTrue}}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := extensionConfig("ext")
			after := before.DeepCopy()
			tt.mutate(after)
			a := handlerOf(t, before, "discover.ext").Fingerprint
			b := handlerOf(t, after, "discover.ext").Fingerprint
			if (a != b) != tt.wantChanged {
				t.Errorf("fingerprint changed = %v, want %v", a != b, tt.wantChanged)
			}
		})
	}
}

func TestRegister_ReportsChangedHandlersAndNotifiesSubscribers(t *testing.T) {
	r := New()
	var notified [][]string
	events := 0
	r.Subscribe(t.Context(), func(changes []registration.Change) {
		events++
		if len(changes) > 0 {
			notified = append(notified, names(changes))
		}
	})

	ext := extensionConfig("ext")
	steps := []struct {
		name   string
		mutate func(*runtimev1.ExtensionConfig)
		want   []string
	}{
		{"first registration adds both", func(*runtimev1.ExtensionConfig) {}, []string{"discover.ext", "patch.ext"}},
		{"same handlers again", func(*runtimev1.ExtensionConfig) {}, nil},
		{"status conditions only", func(e *runtimev1.ExtensionConfig) {
			e.Status.Conditions = []metav1.Condition{{Type: "Discovered", Status: metav1.ConditionTrue}}
		}, nil},
		{"one handler's timeout", func(e *runtimev1.ExtensionConfig) { e.Status.Handlers[1].TimeoutSeconds = 20 }, []string{"patch.ext"}},
		{"selector changes both", func(e *runtimev1.ExtensionConfig) {
			e.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
		}, []string{"discover.ext", "patch.ext"}},
		{"handler removed", func(e *runtimev1.ExtensionConfig) { e.Status.Handlers = e.Status.Handlers[:1] }, []string{"patch.ext"}},
	}
	var wantNotified [][]string
	for _, step := range steps {
		step.mutate(ext)
		changes, _, err := r.Register(ext.DeepCopy())
		if err != nil {
			t.Fatal(err)
		}
		got := names(changes)
		if !reflect.DeepEqual(got, step.want) {
			t.Errorf("%s: changed = %v, want %v", step.name, got, step.want)
		}
		if step.want != nil {
			wantNotified = append(wantNotified, step.want)
		}
	}
	if _, ok := r.Get("patch.ext"); ok {
		t.Error("removed handler patch.ext is still registered")
	}
	h, ok := r.Get("discover.ext")
	if !ok {
		t.Fatal("discover.ext missing")
	}
	if h.ExtensionConfig != "ext" || h.HandlerName != "discover" || h.Hook.Hook != "DiscoverVariables" || h.Settings["size"] != "small" {
		t.Errorf("unexpected handler %+v", h)
	}
	if got := r.ByHook(runtimecatalog.GroupHook{Group: "hooks.runtime.cluster.x-k8s.io", Hook: "DiscoverVariables"}); len(got) != 1 || got[0].Name != "discover.ext" {
		t.Errorf("ByHook = %+v", got)
	}

	if removed := names(r.Unregister("ext")); !reflect.DeepEqual(removed, []string{"discover.ext"}) {
		t.Errorf("Unregister returned %v", removed)
	}
	wantNotified = append(wantNotified, []string{"discover.ext"})
	if r.Len() != 0 || len(r.ForConfig("ext")) != 0 {
		t.Errorf("handlers left after Unregister: %d", r.Len())
	}
	if removed := names(r.Unregister("ext")); removed != nil {
		t.Errorf("second Unregister returned %v", removed)
	}
	if !reflect.DeepEqual(notified, wantNotified) {
		t.Errorf("subscriber saw %v, want %v", notified, wantNotified)
	}
	// Every Register and Unregister is an event, changes or not.
	if want := len(steps) + 2; events != want {
		t.Errorf("subscriber called %d times, want %d", events, want)
	}
}

func names(changes []registration.Change) []string {
	var out []string
	for _, c := range changes {
		out = append(out, c.Handler)
	}
	return out
}

func TestRegister_DoesNotShareMemoryWithTheObject(t *testing.T) {
	r := New()
	ext := extensionConfig("ext")
	if _, _, err := r.Register(ext); err != nil {
		t.Fatal(err)
	}
	ext.Spec.Settings["size"] = "mutated"
	ext.Spec.ClientConfig.CABundle[0] = 'X'
	h, _ := r.Get("discover.ext")
	if h.Settings["size"] != "small" || string(h.ClientConfig.CABundle) != "ca-1" {
		t.Errorf("registry entry changed with the caller's object: %+v", h)
	}
}

// Cluster API records full names, earlier versions of this controller short
// ones; both register the same handlers with the same fingerprints, so
// switching between the two writers changes nothing a ClusterClass sees.
func TestRegister_ReadsFullAndShortRecordedNamesAlikeAndSkipsForeignOnes(t *testing.T) {
	short := extensionConfig("ext")
	full := short.DeepCopy()
	for i := range full.Status.Handlers {
		full.Status.Handlers[i].Name += ".ext"
	}
	r := New()
	if _, skipped, err := r.Register(short); err != nil || skipped != nil {
		t.Fatalf("register short names: skipped %v, err %v", skipped, err)
	}
	fromShort := r.ForConfig("ext")
	changes, skipped, err := r.Register(full)
	if err != nil || skipped != nil {
		t.Fatalf("register full names: skipped %v, err %v", skipped, err)
	}
	if changes != nil {
		t.Errorf("the same handlers recorded under full names changed %v", names(changes))
	}
	if fromFull := r.ForConfig("ext"); !reflect.DeepEqual(fromFull, fromShort) {
		t.Errorf("full names registered %+v, short names %+v", fromFull, fromShort)
	}
	if h, _ := r.Get("discover.ext"); h.HandlerName != "discover" {
		t.Errorf("handler name called = %q, want discover", h.HandlerName)
	}

	mixed := full.DeepCopy()
	mixed.Status.Handlers[0].Name = "discover.other"
	mixed.Status.Handlers = append(mixed.Status.Handlers, runtimev1.ExtensionHandler{Name: "a.b.c"}, runtimev1.ExtensionHandler{Name: ".ext"})
	changes, skipped, err = r.Register(mixed)
	if err != nil {
		t.Fatal(err)
	}
	var skippedNames []string
	for _, s := range skipped {
		skippedNames = append(skippedNames, s.Name)
	}
	if want := []string{"discover.other", "a.b.c", ".ext"}; !reflect.DeepEqual(skippedNames, want) {
		t.Errorf("skipped %v, want %v", skipped, want)
	}
	if got := names(changes); !reflect.DeepEqual(got, []string{"discover.ext"}) {
		t.Errorf("changes = %v, want only discover.ext removed", got)
	}
	for _, wrong := range []string{"discover.other", "discover.other.ext", "a.b.c.ext", "a.b.c"} {
		if _, ok := r.Get(wrong); ok {
			t.Errorf("%s is registered", wrong)
		}
	}
}

func TestSync_HoldsExactlyTheListedConfigs(t *testing.T) {
	r := New()
	for _, name := range []string{"kept", "gone", "deleting"} {
		if _, _, err := r.Register(extensionConfig(name)); err != nil {
			t.Fatal(err)
		}
	}
	kept := extensionConfig("kept")
	kept.Spec.Settings["size"] = "large"
	// Being deleted: its reconcile unregisters it, and so does a rebuild.
	deleting := extensionConfig("deleting")
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	deleting.Finalizers = []string{"example.com/hold"}
	changes, skipped, unusable := r.Sync([]runtimev1.ExtensionConfig{*kept, *extensionConfig("new"), *deleting})
	if len(skipped) != 0 || len(unusable) != 0 {
		t.Errorf("skipped %v, unusable %v", skipped, unusable)
	}
	kinds := map[string]registration.ChangeKind{}
	for _, c := range changes {
		kinds[c.Handler] = c.Kind
	}
	want := map[string]registration.ChangeKind{
		"discover.kept": registration.Changed, "patch.kept": registration.Changed,
		"discover.new": registration.Added, "patch.new": registration.Added,
		"discover.gone": registration.Removed, "patch.gone": registration.Removed,
		"discover.deleting": registration.Removed, "patch.deleting": registration.Removed,
	}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("changes %v, want %v", kinds, want)
	}
	if len(r.ForConfig("gone")) != 0 || r.Len() != 4 {
		t.Errorf("after Sync: %d handlers, gone has %d", r.Len(), len(r.ForConfig("gone")))
	}
	select {
	case <-r.Gate().Done(Rebuilt):
		t.Fatal("Rebuilt open before Open(Rebuilt)")
	default:
	}
	r.Gate().Open(Rebuilt)
	r.Gate().Open(Rebuilt)
	<-r.Gate().Done(Rebuilt)
}

func TestHolds_AndResourceVersionOf(t *testing.T) {
	r := New()
	ext := extensionConfig("x")
	ext.ResourceVersion = "7"
	if r.Holds(ext) {
		t.Error("holds a config never registered")
	}
	if _, _, err := r.Register(ext); err != nil {
		t.Fatal(err)
	}
	if rv, ok := r.ResourceVersionOf("x"); !ok || rv != "7" {
		t.Errorf("ResourceVersionOf = %q, %v; want 7", rv, ok)
	}
	if !r.Holds(ext) {
		t.Error("does not hold what it just registered")
	}
	changed := ext.DeepCopy()
	changed.Spec.Settings["size"] = "large"
	if r.Holds(changed) {
		t.Error("holds a config whose settings changed")
	}
	reselected := ext.DeepCopy()
	reselected.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
	if r.Holds(reselected) {
		t.Error("holds a config whose selector changed")
	}
	r.Unregister("x")
	if _, ok := r.ResourceVersionOf("x"); ok {
		t.Error("a resourceVersion outlived its registration")
	}
}
