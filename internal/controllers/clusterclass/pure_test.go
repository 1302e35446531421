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

package clusterclass

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/variablescache"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/variableschema"
)

func stringVar(name string, required bool) clusterv1.ClusterClassVariable {
	return clusterv1.ClusterClassVariable{Name: name, Required: ptr.To(required),
		Schema: clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{Type: "string"}}}
}

func TestMergeVariables(t *testing.T) {
	unique := stringVar("tags", false)
	unique.Schema.OpenAPIV3Schema = clusterv1.JSONSchemaProps{Type: "array", UniqueItems: ptr.To(false), Items: &clusterv1.JSONSchemaProps{Type: "string"}}
	plain := unique
	plain.Schema.OpenAPIV3Schema = clusterv1.JSONSchemaProps{Type: "array", Items: &clusterv1.JSONSchemaProps{Type: "string"}}
	noRequired := stringVar("zone", false)
	noRequired.Required = nil
	withEnum := stringVar("region", true)
	withEnum.Schema.OpenAPIV3Schema.Enum = []apiextensionsv1.JSON{{Raw: []byte(`"eu"`)}}

	tests := []struct {
		name      string
		sources   []variableSource
		want      map[string][]string // variable -> definitions' from, in order
		conflicts []string
	}{
		{
			name:    "nothing",
			sources: []variableSource{{from: "inline"}},
			want:    map[string][]string{},
		},
		{
			name: "same definition from two sources does not conflict",
			sources: []variableSource{
				{from: "inline", variables: []clusterv1.ClusterClassVariable{stringVar("region", true)}},
				{from: "patch", variables: []clusterv1.ClusterClassVariable{stringVar("region", true)}},
			},
			want: map[string][]string{"region": {"inline", "patch"}},
		},
		{
			name: "required differs",
			sources: []variableSource{
				{from: "inline", variables: []clusterv1.ClusterClassVariable{stringVar("region", true)}},
				{from: "patch", variables: []clusterv1.ClusterClassVariable{stringVar("region", false)}},
			},
			want:      map[string][]string{"region": {"inline", "patch"}},
			conflicts: []string{`"region" (from inline, patch)`},
		},
		{
			name: "schema differs",
			sources: []variableSource{
				{from: "a", variables: []clusterv1.ClusterClassVariable{stringVar("region", true)}},
				{from: "b", variables: []clusterv1.ClusterClassVariable{withEnum}},
			},
			want:      map[string][]string{"region": {"a", "b"}},
			conflicts: []string{`"region" (from a, b)`},
		},
		{
			name: "a false flag is no constraint, as in Cluster API",
			sources: []variableSource{
				{from: "a", variables: []clusterv1.ClusterClassVariable{unique}},
				{from: "b", variables: []clusterv1.ClusterClassVariable{plain}},
			},
			want: map[string][]string{"tags": {"a", "b"}},
		},
		{
			name: "sorted by name, unset required written as false",
			sources: []variableSource{
				{from: "inline", variables: []clusterv1.ClusterClassVariable{noRequired, stringVar("a", true)}},
			},
			want: map[string][]string{"a": {"inline"}, "zone": {"inline"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, conflicts := mergeVariables(tt.sources)
			if !reflect.DeepEqual(conflicts, tt.conflicts) {
				t.Errorf("conflicts %q, want %q", conflicts, tt.conflicts)
			}
			froms := map[string][]string{}
			var names []string
			for _, v := range got {
				names = append(names, v.Name)
				for _, d := range v.Definitions {
					froms[v.Name] = append(froms[v.Name], d.From)
					if d.Required == nil {
						t.Errorf("%s from %s: required unset; the CRD requires it in status", v.Name, d.From)
					}
				}
				if conflict := ptr.Deref(v.DefinitionsConflict, false); conflict != (len(tt.conflicts) > 0) {
					t.Errorf("%s: definitionsConflict %t", v.Name, conflict)
				}
			}
			if !reflect.DeepEqual(froms, tt.want) {
				t.Errorf("definitions %v, want %v", froms, tt.want)
			}
			for i := 1; i < len(names); i++ {
				if names[i-1] >= names[i] {
					t.Errorf("not sorted by name: %v", names)
				}
			}
		})
	}
}

func TestCallOutcome(t *testing.T) {
	failed := errors.New("boom")
	tests := []struct {
		outcome variablescache.Outcome
		err     error
		want    string
	}{
		{variablescache.Called, nil, metrics.CallSuccess},
		{variablescache.Called, failed, metrics.CallError},
		{variablescache.Hit, nil, metrics.CallCacheHit},
		{variablescache.Shared, nil, metrics.CallShared},
		{variablescache.Shared, failed, metrics.CallShared},
		{variablescache.FailureShared, failed, metrics.CallFailureShared},
	}
	for _, tt := range tests {
		if got := callOutcome(tt.outcome, tt.err); got != tt.want {
			t.Errorf("callOutcome(%s, %v) = %s, want %s", tt.outcome, tt.err, got, tt.want)
		}
	}
}

func TestWorthReconciling(t *testing.T) {
	base := &clusterv1.ClusterClass{ObjectMeta: metav1.ObjectMeta{Generation: 3, Annotations: map[string]string{"a": "1"}}}
	tests := []struct {
		name   string
		change func(*clusterv1.ClusterClass)
		want   bool
	}{
		{"resync", func(*clusterv1.ClusterClass) {}, false},
		{"status write", func(cc *clusterv1.ClusterClass) { cc.Status.ObservedGeneration = 3; cc.ResourceVersion = "9" }, false},
		{"label churn", func(cc *clusterv1.ClusterClass) { cc.Labels = map[string]string{"team": "a"} }, false},
		{"spec change", func(cc *clusterv1.ClusterClass) { cc.Generation = 4 }, true},
		{"paused", func(cc *clusterv1.ClusterClass) { cc.Annotations[clusterv1.PausedAnnotation] = "" }, true},
		{"annotation removed", func(cc *clusterv1.ClusterClass) { cc.Annotations = nil }, true},
	}
	for _, tt := range tests {
		updated := base.DeepCopy()
		tt.change(updated)
		if got := worthReconciling(base, updated); got != tt.want {
			t.Errorf("%s: worthReconciling = %t, want %t", tt.name, got, tt.want)
		}
	}
}

func TestCanAppendAndHasOwner(t *testing.T) {
	desired := metav1.OwnerReference{APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "ClusterClass", Name: "cc", UID: "uid-cc"}
	other := metav1.OwnerReference{APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "ClusterClass", Name: "other", UID: "uid-other"}
	with := func(change func(*metav1.OwnerReference)) []metav1.OwnerReference {
		r := desired
		change(&r)
		return []metav1.OwnerReference{r}
	}
	tests := []struct {
		name string
		refs []metav1.OwnerReference
		// owned: hasOwner, the ClusterClass is an owner already; appendable:
		// canAppend, a JSON patch may add it to the list as it stands.
		owned, appendable bool
	}{
		{name: "no list yet: a JSON patch cannot append to it", refs: nil},
		{name: "an empty list", refs: []metav1.OwnerReference{}},
		{name: "exactly it", refs: []metav1.OwnerReference{desired}, owned: true},
		{name: "among others", refs: []metav1.OwnerReference{other, desired}, owned: true},
		{name: "only another ClusterClass", refs: []metav1.OwnerReference{other}, appendable: true},
		{name: "the ClusterClass recreated: its entry is updated in place", refs: with(func(r *metav1.OwnerReference) { r.UID = "uid-old" })},
		{name: "the ClusterClass at another API version of its group", refs: with(func(r *metav1.OwnerReference) { r.APIVersion = "cluster.x-k8s.io/v1beta1" })},
		{name: "an owner of another kind with the same name", refs: with(func(r *metav1.OwnerReference) { r.Kind = "Cluster" }), appendable: true},
		{name: "a ClusterClass of another group with the same name", refs: with(func(r *metav1.OwnerReference) { r.APIVersion = "example.com/v1" }), appendable: true},
		{name: "controller false reads as unset", refs: with(func(r *metav1.OwnerReference) { r.Controller = ptr.To(false) }), owned: true},
		{name: "as controller, which we never are", refs: with(func(r *metav1.OwnerReference) { r.Controller = ptr.To(true) })},
	}
	for _, tt := range tests {
		if got := hasOwner(tt.refs, desired); got != tt.owned {
			t.Errorf("%s: hasOwner = %t, want %t", tt.name, got, tt.owned)
		}
		if got := canAppend(tt.refs, desired); got != tt.appendable {
			t.Errorf("%s: canAppend = %t, want %t", tt.name, got, tt.appendable)
		}
	}
}

func TestRefreshIntervalFor(t *testing.T) {
	tests := []struct {
		name   string
		maxAge time.Duration
		want   time.Duration
	}{
		{"no max age refreshes nothing", 0, 0},
		{"a negative max age refreshes nothing", -time.Second, 0},
		{"a quarter below 100ms is raised to it", 100 * time.Millisecond, 100 * time.Millisecond},
		{"a quarter of exactly 100ms", 400 * time.Millisecond, 100 * time.Millisecond},
		{"a quarter", time.Second, 250 * time.Millisecond},
		{"a quarter of exactly 5s", 20 * time.Second, 5 * time.Second},
		{"a quarter above 5s is capped to it", time.Hour, 5 * time.Second},
	}
	for _, tt := range tests {
		if got := RefreshIntervalFor(tt.maxAge); got != tt.want {
			t.Errorf("%s: RefreshIntervalFor(%s) = %s, want %s", tt.name, tt.maxAge, got, tt.want)
		}
	}
}

func TestVariableSourceCheck(t *testing.T) {
	good := stringVar("good", true)
	bad := stringVar("bad", true)
	bad.Schema.OpenAPIV3Schema.Type = "text"
	const patch = `patch "p" (vars.ext)`
	tests := []struct {
		name string
		src  variableSource
		// want are the failures' starts, in order.
		want []string
	}{
		{"valid inline variables", variableSource{from: "inline", variables: []clusterv1.ClusterClassVariable{good}}, nil},
		{
			"an invalid inline variable is named with its index in spec.variables",
			variableSource{from: "inline", variables: []clusterv1.ClusterClassVariable{good, bad}},
			[]string{`inline variable "bad" is invalid: spec.variables[1].schema.openAPIV3Schema.type: Unsupported value: "text"`},
		},
		{"a patch's valid variables", variableSource{from: "p", where: patch, variables: []clusterv1.ClusterClassVariable{good}}, nil},
		{
			"a patch's invalid variable is named with the patch and its name",
			variableSource{from: "p", where: patch, variables: []clusterv1.ClusterClassVariable{bad, good}},
			[]string{patch + `: variable "bad" is invalid: variables[bad].schema.openAPIV3Schema.type: Unsupported value: "text"`},
		},
		{
			"a failed patch says why, and nothing else",
			variableSource{from: "p", where: patch, failed: patch + ": no call made"},
			[]string{patch + ": no call made"},
		},
	}
	for _, tt := range tests {
		schemas := (&variableschema.Verdicts{}).Check(types.NamespacedName{Namespace: "ns", Name: "cc"})
		got := tt.src.check(schemas)
		ok := len(got) == len(tt.want)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.HasPrefix(got[i], tt.want[i])
		}
		if !ok {
			t.Errorf("%s: failures\n%q\nwant ones starting with\n%q", tt.name, got, tt.want)
		}
	}
}
