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

package variableschema

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// classNamed names a ClusterClass, the user a Verdicts holds results for.
func classNamed(name string) types.NamespacedName {
	return types.NamespacedName{Namespace: "ns", Name: name}
}

func variable(name string, schema clusterv1.JSONSchemaProps) clusterv1.ClusterClassVariable {
	return clusterv1.ClusterClassVariable{Name: name, Required: ptr.To(true), Schema: clusterv1.VariableSchema{OpenAPIV3Schema: schema}}
}

func raw(s string) *apiextensionsv1.JSON { return &apiextensionsv1.JSON{Raw: []byte(s)} }

func TestValidate(t *testing.T) {
	replicas := clusterv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]clusterv1.JSONSchemaProps{
			"replicas": {Type: "integer", Minimum: ptr.To[int64](1), Default: raw(`3`)},
			"image":    {Type: "string", Format: "uri", MaxLength: ptr.To[int64](200), Example: raw(`"https://registry.example/img"`)},
		},
		XValidations: []clusterv1.ValidationRule{{Rule: "self.replicas <= 10", Message: "at most 10 replicas"}},
	}
	tests := []struct {
		name     string
		variable clusterv1.ClusterClassVariable
		want     []string // substrings of the aggregated error; empty means valid
	}{
		{name: "valid object with default, example and CEL", variable: variable("machine", replicas)},
		{name: "valid string enum", variable: variable("region", clusterv1.JSONSchemaProps{Type: "string", Enum: []apiextensionsv1.JSON{*raw(`"eu"`), *raw(`"us"`)}, Default: raw(`"eu"`)})},
		{name: "reserved name", variable: variable("builtin", clusterv1.JSONSchemaProps{Type: "string"}),
			want: []string{"spec.variables[0].name", `"builtin" is reserved`}},
		{name: "dotted name", variable: variable("a.b", clusterv1.JSONSchemaProps{Type: "string"}),
			want: []string{"must not contain a dot"}},
		{name: "unsupported type", variable: variable("when", clusterv1.JSONSchemaProps{Type: "date"}),
			want: []string{"openAPIV3Schema.type", `"date"`}},
		{name: "unknown format", variable: variable("colour", clusterv1.JSONSchemaProps{Type: "string", Format: "rgb"}),
			want: []string{"openAPIV3Schema.format", "unknown format"}},
		{name: "property without type is not structural", variable: variable("loose", clusterv1.JSONSchemaProps{
			Type: "object", Properties: map[string]clusterv1.JSONSchemaProps{"any": {}},
		}), want: []string{`openAPIV3Schema.properties[any].type`, "Required value"}},
		{name: "CEL that does not compile", variable: variable("broken", clusterv1.JSONSchemaProps{
			Type: "object", Properties: map[string]clusterv1.JSONSchemaProps{"size": {Type: "integer"}},
			XValidations: []clusterv1.ValidationRule{{Rule: "self.size >"}},
		}), want: []string{"x-kubernetes-validations[0].rule", "compilation failed"}},
		{name: "CEL on a missing field", variable: variable("missing", clusterv1.JSONSchemaProps{
			Type: "object", Properties: map[string]clusterv1.JSONSchemaProps{"size": {Type: "integer"}},
			XValidations: []clusterv1.ValidationRule{{Rule: "self.colour == 'red'"}},
		}), want: []string{"x-kubernetes-validations[0].rule", "undefined field 'colour'"}},
		{name: "default of the wrong type", variable: variable("count", clusterv1.JSONSchemaProps{Type: "integer", Default: raw(`"three"`)}),
			want: []string{"openAPIV3Schema.default", "integer"}},
		{name: "default violating CEL", variable: variable("machine", clusterv1.JSONSchemaProps{
			Type: "object", Properties: map[string]clusterv1.JSONSchemaProps{"replicas": {Type: "integer", Default: raw(`20`)}},
			XValidations: []clusterv1.ValidationRule{{Rule: "self.replicas <= 10", Message: "at most 10 replicas"}},
			Default:      raw(`{}`),
		}), want: []string{"at most 10 replicas"}},
		{name: "valid CEL on an array and on nested arrays", variable: variable("disks", clusterv1.JSONSchemaProps{
			Type: "array", MaxItems: ptr.To[int64](4),
			Items: &clusterv1.JSONSchemaProps{
				Type: "object", Properties: map[string]clusterv1.JSONSchemaProps{
					"sizeGiB": {Type: "integer"},
					"tags": {Type: "array", MaxItems: ptr.To[int64](8), Items: &clusterv1.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](20)},
						XValidations: []clusterv1.ValidationRule{{Rule: "self.all(t, t != '')"}}},
				},
			},
			XValidations: []clusterv1.ValidationRule{{Rule: "self.all(d, d.sizeGiB > 0)"}},
		})},
		{name: "CEL sees no apiVersion, kind or metadata on an object value", variable: variable("machine", clusterv1.JSONSchemaProps{
			Type: "object", Properties: map[string]clusterv1.JSONSchemaProps{"size": {Type: "integer"}},
			XValidations: []clusterv1.ValidationRule{{Rule: "self.kind == 'Machine'"}},
		}), want: []string{"x-kubernetes-validations[0].rule", "undefined field 'kind'"}},
		{name: "example too long", variable: variable("code", clusterv1.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](2), Example: raw(`"toolong"`)}),
			want: []string{"openAPIV3Schema.example", "may not be more than 2 bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := Validate(tt.variable, field.NewPath("spec", "variables").Index(0))
			got := errs.ToAggregate()
			if len(tt.want) == 0 {
				if got != nil {
					t.Fatalf("unexpected errors: %v", got)
				}
				return
			}
			if got == nil {
				t.Fatal("expected errors, got none")
			}
			for _, w := range tt.want {
				if !strings.Contains(got.Error(), w) {
					t.Errorf("errors %q do not mention %q", got.Error(), w)
				}
			}
		})
	}
}

func TestCache_ValidatesEachSchemaOnceWhileAUserHoldsIt(t *testing.T) {
	c := &Verdicts{}
	v := variable("code", clusterv1.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](2), Example: raw(`"toolong"`)})
	p := field.NewPath("x")
	check := c.Check(classNamed("a"))
	first := check.Validate(v, p)
	check.Commit()
	if len(first) == 0 || c.Len() != 1 {
		t.Fatalf("first pass: %v, cached %d", first, c.Len())
	}
	// The result is found without validating: a result that is not the
	// validator's shows it came from the cache.
	for key := range c.results {
		c.results[key].errs = field.ErrorList{field.InternalError(p, errors.New("from the cache"))}
	}
	check = c.Check(classNamed("a"))
	if second := check.Validate(v, p); len(second) != 1 || second[0].Type != field.ErrorTypeInternal {
		t.Errorf("second pass validated again: %v", second)
	}
	v.Schema.OpenAPIV3Schema.MaxLength = ptr.To[int64](10)
	if errs := check.Validate(v, p); len(errs) != 0 {
		t.Errorf("a changed schema was not validated anew: %v", errs)
	}
	check.Commit()
	if c.Len() != 2 {
		t.Errorf("cached %d after a pass that checked two schemas, want 2", c.Len())
	}
}

func TestCache_ForgetsWhatNoUserHolds(t *testing.T) {
	c := &Verdicts{}
	p := field.NewPath("x")
	shared := variable("shared", clusterv1.JSONSchemaProps{Type: "string"})
	onlyA := variable("only-a", clusterv1.JSONSchemaProps{Type: "integer"})
	pass := func(user string, vars ...clusterv1.ClusterClassVariable) {
		check := c.Check(classNamed(user))
		for _, v := range vars {
			check.Validate(v, p)
		}
		check.Commit()
	}
	pass("a", shared, onlyA)
	pass("b", shared)
	if c.Len() != 2 {
		t.Fatalf("cached %d, want 2", c.Len())
	}
	pass("a", shared) // a no longer has only-a
	if c.Len() != 1 {
		t.Errorf("cached %d after a dropped its own variable, want 1", c.Len())
	}
	c.Release(classNamed("a"))
	if c.Len() != 1 {
		t.Errorf("cached %d after a went, want the variable b still holds", c.Len())
	}
	c.Release(classNamed("b"))
	if c.Len() != 0 || len(c.usedBy) != 0 {
		t.Errorf("cached %d for %d users after every user went, want nothing", c.Len(), len(c.usedBy))
	}
	// A pass never committed leaves nothing behind.
	c.Check(classNamed("c")).Validate(shared, p)
	if c.Len() != 0 {
		t.Errorf("cached %d from an uncommitted pass", c.Len())
	}
}

func TestCache_KeepsNoMoreThanMaxEntries(t *testing.T) {
	c := &Verdicts{MaxEntries: 3}
	check := c.Check(classNamed("a"))
	for i := range 5 {
		v := variable(fmt.Sprintf("v%d", i), clusterv1.JSONSchemaProps{Type: "object", XValidations: []clusterv1.ValidationRule{{Rule: "bad("}}})
		if errs := check.Validate(v, field.NewPath("x")); len(errs) == 0 {
			t.Fatalf("v%d: an invalid rule passed", i)
		}
	}
	check.Commit()
	if c.Len() != 3 {
		t.Errorf("cached %d, want the bound 3", c.Len())
	}
	c.Release(classNamed("a"))
	if c.Len() != 0 {
		t.Errorf("cached %d after the only user went", c.Len())
	}
}

func BenchmarkValidate(b *testing.B) {
	v := variable("machine", clusterv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]clusterv1.JSONSchemaProps{
			"replicas": {Type: "integer", Minimum: ptr.To[int64](1), Default: raw(`3`)},
			"image":    {Type: "string", MaxLength: ptr.To[int64](200), Example: raw(`"registry.example/img:v1"`)},
			"labels":   {Type: "object", AdditionalProperties: &clusterv1.JSONSchemaProps{Type: "string"}},
		},
		XValidations: []clusterv1.ValidationRule{{Rule: "self.replicas <= 10", Message: "at most 10 replicas"}},
	})
	p := field.NewPath("spec", "variables").Index(0)
	plain := v.DeepCopy()
	plain.Schema.OpenAPIV3Schema.XValidations = nil
	b.Run("uncached-no-cel", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if errs := Validate(*plain, p); len(errs) != 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("uncached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if errs := Validate(v, p); len(errs) != 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		c := &Verdicts{}
		warm := c.Check(classNamed("cc"))
		warm.Validate(v, p)
		warm.Commit()
		b.ReportAllocs()
		for b.Loop() {
			check := c.Check(classNamed("cc"))
			if errs := check.Validate(v, p); len(errs) != 0 {
				b.Fatal(errs)
			}
			check.Commit()
		}
	})
}
