package clusterclass

import (
	"errors"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/callcache"
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
		outcome callcache.Outcome
		err     error
		want    string
	}{
		{callcache.Called, nil, metrics.CallSuccess},
		{callcache.Called, failed, metrics.CallError},
		{callcache.Hit, nil, metrics.CallCacheHit},
		{callcache.Shared, nil, metrics.CallShared},
		{callcache.Shared, failed, metrics.CallShared},
		{callcache.FailureShared, failed, metrics.CallFailureShared},
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
