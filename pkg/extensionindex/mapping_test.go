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
	"context"
	"reflect"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

const hooks = "hooks.runtime.cluster.x-k8s.io/v1alpha1"

func extensionConfig(selector *metav1.LabelSelector, handlers ...runtimev1.ExtensionHandler) *runtimev1.ExtensionConfig {
	return &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "ext", ResourceVersion: "1"},
		Spec: runtimev1.ExtensionConfigSpec{
			ClientConfig:      runtimev1.ClientConfig{URL: "https://ext:9443"},
			NamespaceSelector: selector,
		},
		Status: runtimev1.ExtensionConfigStatus{Handlers: handlers},
	}
}

func handler(name, hook string, timeout int32) runtimev1.ExtensionHandler {
	return runtimev1.ExtensionHandler{
		Name: name, RequestHook: runtimev1.GroupVersionHook{APIVersion: hooks, Hook: hook},
		TimeoutSeconds: timeout, FailurePolicy: runtimev1.FailurePolicyFail,
	}
}

func selector(team string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"team": team}}
}

func TestDiff_OnlyObservableChanges(t *testing.T) {
	gen := handler("gen", "GeneratePatches", 10)
	vars := handler("vars", "DiscoverVariables", 10)
	base := extensionConfig(nil, gen, vars)
	tests := []struct {
		name   string
		mutate func(*runtimev1.ExtensionConfig)
		want   map[string]registration.ChangeKind
	}{
		{"resync: same object", func(*runtimev1.ExtensionConfig) {}, nil},
		{"status write with equal handlers", func(e *runtimev1.ExtensionConfig) {
			e.ResourceVersion = "2"
			e.Status.Conditions = []metav1.Condition{{Type: "Discovered", Status: metav1.ConditionTrue}}
		}, nil},
		{"label and annotation churn", func(e *runtimev1.ExtensionConfig) {
			e.Labels = map[string]string{"a": "b"}
			e.Annotations = map[string]string{"c": "d"}
		}, nil},
		// Whether nil and {} admit alike is the mapping's reading to decide.
		{"nil selector to empty", func(e *runtimev1.ExtensionConfig) { e.Spec.NamespaceSelector = &metav1.LabelSelector{} },
			map[string]registration.ChangeKind{"gen.ext": registration.SelectorChanged, "vars.ext": registration.SelectorChanged}},
		{"one handler's timeout", func(e *runtimev1.ExtensionConfig) { e.Status.Handlers[0].TimeoutSeconds = 20 }, map[string]registration.ChangeKind{"gen.ext": registration.Changed}},
		{"handler added", func(e *runtimev1.ExtensionConfig) {
			e.Status.Handlers = append(e.Status.Handlers, handler("val", "ValidateTopology", 10))
		}, map[string]registration.ChangeKind{"val.ext": registration.Added}},
		{"handler removed", func(e *runtimev1.ExtensionConfig) { e.Status.Handlers = e.Status.Handlers[1:] }, map[string]registration.ChangeKind{"gen.ext": registration.Removed}},
		{"settings change every handler", func(e *runtimev1.ExtensionConfig) { e.Spec.Settings = map[string]string{"k": "v"} },
			map[string]registration.ChangeKind{"gen.ext": registration.Changed, "vars.ext": registration.Changed}},
		{"selector only", func(e *runtimev1.ExtensionConfig) { e.Spec.NamespaceSelector = selector("a") },
			map[string]registration.ChangeKind{"gen.ext": registration.SelectorChanged, "vars.ext": registration.SelectorChanged}},
		{"ca bundle", func(e *runtimev1.ExtensionConfig) { e.Spec.ClientConfig.CABundle = []byte("x") },
			map[string]registration.ChangeKind{"gen.ext": registration.Changed, "vars.ext": registration.Changed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changed := base.DeepCopy()
			tt.mutate(changed)
			var got map[string]registration.ChangeKind
			for _, c := range registration.Diff(registration.HandlerStates(base), registration.HandlerStates(changed)) {
				if got == nil {
					got = map[string]registration.ChangeKind{}
				}
				got[c.Handler] = c.Kind
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("registration.Diff = %v, want %v", got, tt.want)
			}
		})
	}
	if got := registration.Diff(nil, registration.HandlerStates(base)); len(got) != 2 || got[0].Kind != registration.Added {
		t.Errorf("create: %+v", got)
	}
	if got := registration.Diff(registration.HandlerStates(base), nil); len(got) != 2 || got[0].Kind != registration.Removed {
		t.Errorf("delete: %+v", got)
	}
}

// mappingReader is a fake cache holding ClusterClasses and Namespaces with
// the real index functions registered: enough to test the mapping rules,
// not the cache.
func mappingReader(t *testing.T, objs ...client.Object) client.Reader {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := clusterv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).
		WithIndex(&clusterv1.ClusterClass{}, ByHandler, handlerKeys).
		WithIndex(&clusterv1.ClusterClass{}, ByExtensionConfig, extensionConfigKeys).
		Build()
}

func namespace(name, team string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"team": team}}}
}

func referencing(namespace, name string, handlers ...string) *clusterv1.ClusterClass {
	cc := &clusterv1.ClusterClass{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	for _, h := range handlers {
		cc.Spec.Patches = append(cc.Spec.Patches, clusterv1.ClusterClassPatch{
			Name: h, External: &clusterv1.ExternalPatchDefinition{DiscoverVariablesExtension: h},
		})
	}
	return cc
}

func names(requests []reconcile.Request) []string {
	out := make([]string, 0, len(requests))
	for _, r := range requests {
		out = append(out, r.String())
	}
	sort.Strings(out)
	return out
}

func TestMapper_ExtensionConfigEvents(t *testing.T) {
	reader := mappingReader(t,
		namespace("team-a", "a"), namespace("team-b", "b"), namespace("team-c", "c"),
		referencing("team-a", "vars", "vars.ext"),
		referencing("team-b", "vars", "vars.ext"),
		referencing("team-c", "vars", "vars.ext"),
		referencing("team-a", "gen", "gen.ext"),
		referencing("team-a", "both", "gen.ext", "vars.ext"),
		referencing("team-a", "other", "vars.other"),
		referencing("team-d", "vars", "vars.ext"),
	)
	m := Mapper{Reader: reader}
	gen := handler("gen", "GeneratePatches", 10)
	vars := handler("vars", "DiscoverVariables", 10)
	// {} admits every namespace; Cluster API's webhook defaults nil to it.
	base := extensionConfig(&metav1.LabelSelector{}, gen, vars)
	withSelector := func(team string) *runtimev1.ExtensionConfig {
		e := base.DeepCopy()
		e.Spec.NamespaceSelector = selector(team)
		return e
	}
	tests := []struct {
		name     string
		old, new *runtimev1.ExtensionConfig
		want     []string
	}{
		{name: "resync", old: base, new: base.DeepCopy(), want: []string{}},
		{name: "create", old: nil, new: base, want: []string{"team-a/both", "team-a/gen", "team-a/vars", "team-b/vars", "team-c/vars", "team-d/vars"}},
		{name: "delete", old: base, new: nil, want: []string{"team-a/both", "team-a/gen", "team-a/vars", "team-b/vars", "team-c/vars", "team-d/vars"}},
		{name: "gen timeout", old: base, new: func() *runtimev1.ExtensionConfig {
			e := base.DeepCopy()
			e.Status.Handlers[0].TimeoutSeconds = 30
			return e
		}(), want: []string{"team-a/both", "team-a/gen"}},
		{name: "selector a to b flips a and b", old: withSelector("a"), new: withSelector("b"),
			want: []string{"team-a/both", "team-a/gen", "team-a/vars", "team-b/vars", "team-d/vars"}},
		{name: "{} to a rejects b and c", old: base, new: withSelector("a"), want: []string{"team-b/vars", "team-c/vars", "team-d/vars"}},
		// team-d is in no cache: its ClusterClass is enqueued to decide for
		// itself, and the mapping of the others goes on.
		{name: "selector change with a namespace missing from the cache", old: withSelector("a"), new: withSelector("d"),
			want: []string{"team-a/both", "team-a/gen", "team-a/vars", "team-d/vars"}},
		{name: "settings change under selector a skips namespaces admitted neither before nor after", old: withSelector("a"),
			new: func() *runtimev1.ExtensionConfig {
				e := withSelector("a")
				e.Spec.Settings = map[string]string{"k": "v"}
				return e
			}(), want: []string{"team-a/both", "team-a/gen", "team-a/vars", "team-d/vars"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requests, err := m.RequestsForExtensionConfig(context.Background(), tt.old, tt.new)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(requests); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("requests = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMapper_NamespaceLabelFlip(t *testing.T) {
	reader := mappingReader(t,
		namespace("ns", "a"),
		referencing("ns", "restricted", "vars.ext"),
		referencing("ns", "unrestricted", "vars.open"),
		referencing("ns", "unregistered", "vars.gone"),
		referencing("elsewhere", "restricted", "vars.ext"),
	)
	selectors := map[string]*metav1.LabelSelector{"ext": selector("a"), "open": nil}
	lookup := func(config string) (*metav1.LabelSelector, bool) {
		s, ok := selectors[config]
		return s, ok
	}
	m := Mapper{Reader: reader}
	tests := []struct {
		name     string
		old, new map[string]string
		want     []string
	}{
		{"a to b rejects", map[string]string{"team": "a"}, map[string]string{"team": "b"}, []string{"ns/restricted"}},
		{"b to a admits", map[string]string{"team": "b"}, map[string]string{"team": "a"}, []string{"ns/restricted"}},
		{"unrelated label", map[string]string{"team": "a"}, map[string]string{"team": "a", "x": "y"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requests, err := m.RequestsForNamespace(context.Background(), "ns", tt.old, tt.new, lookup)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(requests); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("requests = %v, want %v", got, tt.want)
			}
		})
	}
}

// A Namespace relabelled a -> b while a config's selector changes from
// team=a to team=c: the ClusterClass was admitted and no longer is, yet
// neither event alone shows a flip (the selector change sees the new
// labels: not admitted before or after; the label change sees the new
// selector: not admitted before or after). Against the admission last
// applied, both do.
func TestMapper_InterleavedLabelAndSelectorChangesLoseNoFlip(t *testing.T) {
	reader := mappingReader(t, namespace("ns", "b"), referencing("ns", "cc", "vars.ext"))
	applied := func(cc types.NamespacedName, config string) (bool, bool) {
		return cc.String() == "ns/cc" && config == "ext", cc.String() == "ns/cc" && config == "ext"
	}
	vars := handler("vars", "DiscoverVariables", 10)
	selectorChange := registration.Diff(registration.HandlerStates(extensionConfig(selector("a"), vars)), registration.HandlerStates(extensionConfig(selector("c"), vars)))
	lookup := func(string) (*metav1.LabelSelector, bool) { return selector("c"), true }
	ctx := context.Background()

	for _, tt := range []struct {
		name string
		m    Mapper
		want []string
	}{
		{"edges only", Mapper{Reader: reader}, []string{}},
		{"against what was applied", Mapper{Reader: reader, Applied: applied}, []string{"ns/cc"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bySelector, err := tt.m.RequestsForChanges(ctx, selectorChange)
			if err != nil {
				t.Fatal(err)
			}
			byLabels, err := tt.m.RequestsForNamespace(ctx, "ns", map[string]string{"team": "a"}, map[string]string{"team": "b"}, lookup)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(bySelector); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("selector change: %v, want %v", got, tt.want)
			}
			if got := names(byLabels); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("label change: %v, want %v", got, tt.want)
			}
		})
	}
}

// A reconcile records its admission only when it ends: an edge that lands
// while it runs (the namespace relabelled away and back, the record not yet
// written) is still followed, whatever the old record says.
func TestMapper_AnEdgeIsFollowedWhateverTheRecordSays(t *testing.T) {
	reader := mappingReader(t, namespace("ns", "a"), referencing("ns", "cc", "vars.ext"))
	stale := func(types.NamespacedName, string) (bool, bool) { return true, true }
	lookup := func(string) (*metav1.LabelSelector, bool) { return selector("a"), true }
	m := Mapper{Reader: reader, Applied: stale}
	requests, err := m.RequestsForNamespace(context.Background(), "ns", map[string]string{"team": "b"}, map[string]string{"team": "a"}, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(requests); !reflect.DeepEqual(got, []string{"ns/cc"}) {
		t.Errorf("requests = %v, want the edge followed", got)
	}
}

// A selector change enqueues exactly the ClusterClasses whose admission
// flips when it goes between nil (admits none, as in Cluster API), {} and
// a selector with terms. team-d has no Namespace in the cache: it is
// enqueued only where the answer depends on its labels.
func TestMapper_SelectorChangesFlipAdmissionAsClusterAPIReadsThem(t *testing.T) {
	reader := mappingReader(t,
		namespace("team-a", "a"), namespace("team-b", "b"),
		referencing("team-a", "vars", "vars.ext"),
		referencing("team-b", "vars", "vars.ext"),
		referencing("team-d", "vars", "vars.ext"),
		referencing("team-a", "other", "vars.other"),
	)
	vars := handler("vars", "DiscoverVariables", 10)
	config := func(s *metav1.LabelSelector) *runtimev1.ExtensionConfig { return extensionConfig(s, vars) }
	every := []string{"team-a/vars", "team-b/vars", "team-d/vars"}
	tests := []struct {
		name     string
		old, new *metav1.LabelSelector
		want     []string
	}{
		{name: "nil to {}", old: nil, new: &metav1.LabelSelector{}, want: every},
		{name: "{} to nil", old: &metav1.LabelSelector{}, new: nil, want: every},
		{name: "nil to team a", old: nil, new: selector("a"), want: []string{"team-a/vars", "team-d/vars"}},
		{name: "team a to nil", old: selector("a"), new: nil, want: []string{"team-a/vars", "team-d/vars"}},
		{name: "{} to team a", old: &metav1.LabelSelector{}, new: selector("a"), want: []string{"team-b/vars", "team-d/vars"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Mapper{Reader: reader}
			requests, err := m.RequestsForExtensionConfig(context.Background(), config(tt.old), config(tt.new))
			if err != nil {
				t.Fatal(err)
			}
			if got := names(requests); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("requests = %v, want %v", got, tt.want)
			}
		})
	}
}

// A nil selector admits nothing, so a settings change reaches no
// ClusterClass: none made a call, and none will.
func TestMapper_SettingsChangeUnderANilSelectorReachesNoClusterClass(t *testing.T) {
	reader := mappingReader(t, namespace("team-a", "a"), referencing("team-a", "vars", "vars.ext"))
	vars := handler("vars", "DiscoverVariables", 10)
	old := extensionConfig(nil, vars)
	changed := old.DeepCopy()
	changed.Spec.Settings = map[string]string{"k": "v"}
	requests, err := Mapper{Reader: reader}.RequestsForExtensionConfig(context.Background(), old, changed)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(requests); len(got) != 0 {
		t.Errorf("requests = %v, want none", got)
	}
}

// A nil selector ignores labels: relabelling a Namespace never flips it,
// while a selector with terms still flips.
func TestMapper_NamespaceLabelChangeNeverFlipsANilSelector(t *testing.T) {
	reader := mappingReader(t,
		namespace("ns", "b"),
		referencing("ns", "unselected", "vars.open"),
		referencing("ns", "selected", "vars.ext"),
	)
	selectors := map[string]*metav1.LabelSelector{"open": nil, "ext": selector("b")}
	lookup := func(config string) (*metav1.LabelSelector, bool) {
		s, ok := selectors[config]
		return s, ok
	}
	requests, err := Mapper{Reader: reader}.RequestsForNamespace(context.Background(), "ns", map[string]string{"team": "a"}, map[string]string{"team": "b"}, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(requests), []string{"ns/selected"}; !reflect.DeepEqual(got, want) {
		t.Errorf("requests = %v, want %v", got, want)
	}
}

func TestStateOf_OwnsItsSelector(t *testing.T) {
	ext := extensionConfig(selector("a"), handler("vars", "DiscoverVariables", 10))
	recorded, _ := registration.RecordedHandlers(ext)
	state := registration.StateOf(ext, recorded[0])
	ext.Spec.NamespaceSelector.MatchLabels["team"] = "b"
	if got := state.NamespaceSelector.MatchLabels["team"]; got != "a" {
		t.Errorf("state's selector followed a change of the ExtensionConfig's: team=%q, want a", got)
	}
	if state.Name != "vars.ext" || state.ExtensionConfig != "ext" || state.Fingerprint != registration.Fingerprint(ext.Spec.ClientConfig, nil, recorded[0]) {
		t.Errorf("state %+v", state)
	}
}
