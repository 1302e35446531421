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
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	schemadefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// valueProperty and rootMarker name the synthetic root the apiserver's
// checks run on; rebase maps their paths back onto the variable's.
const (
	valueProperty = "value"
	rootMarker    = "<root>"
)

// rebase rewrites error paths under the synthetic root onto schemaPath.
func rebase(errs field.ErrorList, schemaPath *field.Path) field.ErrorList {
	prefix := rootMarker + ".properties[" + valueProperty + "]"
	out := make(field.ErrorList, 0, len(errs))
	for _, e := range errs {
		e := *e
		switch {
		case strings.HasPrefix(e.Field, prefix):
			e.Field = schemaPath.String() + strings.TrimPrefix(e.Field, prefix)
		case strings.HasPrefix(e.Field, rootMarker):
			e.Field = schemaPath.String()
		}
		out = append(out, &e)
	}
	return out
}

// staticCostLimit bounds the estimated cost of one CEL rule, as the
// apiserver does for CRDs.
const staticCostLimit = 10_000_000

// openAPITypes are the types a variable schema may use.
var openAPITypes = map[string]bool{"object": true, "array": true, "string": true, "integer": true, "number": true, "boolean": true}

// MaxNameLength is the longest variable name ClusterClass status takes.
const MaxNameLength = 256

// Validate checks one variable; errors are under fldPath.
func Validate(variable clusterv1.ClusterClassVariable, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	namePath := fldPath.Child("name")
	switch {
	case variable.Name == "":
		errs = append(errs, field.Required(namePath, "variable name must not be empty"))
	case variable.Name == runtimehooksv1.BuiltinsName:
		errs = append(errs, field.Invalid(namePath, variable.Name, `"builtin" is reserved for Cluster API's builtin variables`))
	case strings.Contains(variable.Name, "."):
		errs = append(errs, field.Invalid(namePath, variable.Name, "variable name must not contain a dot"))
	case len(variable.Name) > MaxNameLength:
		// The ClusterClass CRD would refuse the whole status write.
		errs = append(errs, field.TooLong(namePath, "", MaxNameLength))
	}
	schemaPath := fldPath.Child("schema", "openAPIV3Schema")
	internal, err := toInternal(variable.Schema.OpenAPIV3Schema)
	if err != nil {
		return append(errs, field.Invalid(schemaPath, "", fmt.Sprintf("schema does not convert: %v", err)))
	}
	errs = append(errs, validateTypesAndFormats(internal, schemaPath)...)

	// The apiserver's checks are written for a CRD's root, which must be an
	// object; a variable's value may be anything. Check the schema as the
	// one property of a root object, and report paths as the variable's.
	root := &apiextensions.JSONSchemaProps{Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{valueProperty: *internal}}
	rootPath := field.NewPath(rootMarker)
	structural, err := structuralschema.NewStructural(root)
	if err != nil {
		return append(errs, field.Invalid(schemaPath, "", fmt.Sprintf("schema is not structural: %v", err)))
	}
	if structuralErrs := structuralschema.ValidateStructural(rootPath, structural); len(structuralErrs) > 0 {
		return append(errs, rebase(structuralErrs, schemaPath)...)
	}
	value := structural.Properties[valueProperty]
	errs = append(errs, validateCEL(&value, schemaPath)...)
	if len(errs) > 0 {
		// Defaults can only be judged against a schema that is itself valid.
		return errs
	}
	defaultErrs, err := schemadefaulting.ValidateDefaults(context.Background(), rootPath, structural, false, true)
	if err != nil {
		errs = append(errs, field.InternalError(schemaPath, err))
	}
	errs = append(errs, rebase(defaultErrs, schemaPath)...)
	return append(errs, validateExamples(internal, schemaPath)...)
}

// toInternal converts Cluster API's schema to the apiserver's internal
// form. The JSON of both follows OpenAPI v3, so a JSON round trip through
// apiextensions/v1 carries every field the apiserver knows; Cluster API's
// own x-metadata is not part of validation and is dropped.
func toInternal(schema clusterv1.JSONSchemaProps) (*apiextensions.JSONSchemaProps, error) {
	data, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	v1 := &apiextensionsv1.JSONSchemaProps{}
	if err := json.Unmarshal(data, v1); err != nil {
		return nil, err
	}
	out := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v1, out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// validateTypesAndFormats walks the schema for types outside OpenAPI v3's
// and formats Kubernetes does not know.
func validateTypesAndFormats(s *apiextensions.JSONSchemaProps, p *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	if s.Type != "" && !openAPITypes[s.Type] {
		errs = append(errs, field.NotSupported(p.Child("type"), s.Type, []string{"array", "boolean", "integer", "number", "object", "string"}))
	}
	if s.Format != "" && !strfmt.Default.ContainsName(s.Format) {
		errs = append(errs, field.Invalid(p.Child("format"), s.Format, "unknown format"))
	}
	for name, prop := range s.Properties {
		errs = append(errs, validateTypesAndFormats(&prop, p.Child("properties").Key(name))...)
	}
	if s.Items != nil && s.Items.Schema != nil {
		errs = append(errs, validateTypesAndFormats(s.Items.Schema, p.Child("items"))...)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		errs = append(errs, validateTypesAndFormats(s.AdditionalProperties.Schema, p.Child("additionalProperties"))...)
	}
	return errs
}

// baseEnvSet is the CEL environment of this Kubernetes version; building it
// costs more than validating a typical schema, so it is built once.
var baseEnvSet = sync.OnceValue(func() *environment.EnvSet {
	return environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
})

// validateCEL compiles every x-kubernetes-validations rule at every level.
func validateCEL(s *structuralschema.Structural, p *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	if len(s.XValidations) > 0 {
		// Not a resource root: a variable's value is no Kubernetes object, so
		// its rules see no apiVersion, kind or metadata. As a root, the
		// apiserver's type would also drop an array's items, failing every
		// rule on an array.
		results, err := cel.Compile(s, model.SchemaDeclType(s, false), celconfig.PerCallLimit, baseEnvSet(), cel.NewExpressionsEnvLoader())
		if err != nil {
			errs = append(errs, field.Invalid(p.Child("x-kubernetes-validations"), "", err.Error()))
		}
		for i, r := range results {
			rulePath := p.Child("x-kubernetes-validations").Index(i).Child("rule")
			if r.Error != nil {
				// CEL details span lines (source, caret); the first says it.
				detail, _, _ := strings.Cut(r.Error.Detail, "\n")
				errs = append(errs, field.Invalid(rulePath, s.XValidations[i].Rule, detail))
				continue
			}
			if r.MaxCost > staticCostLimit {
				errs = append(errs, field.Forbidden(rulePath, fmt.Sprintf("estimated rule cost %d exceeds the limit %d", r.MaxCost, staticCostLimit)))
			}
		}
	}
	for name, prop := range s.Properties {
		errs = append(errs, validateCEL(&prop, p.Child("properties").Key(name))...)
	}
	if s.Items != nil {
		errs = append(errs, validateCEL(s.Items, p.Child("items"))...)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
		errs = append(errs, validateCEL(s.AdditionalProperties.Structural, p.Child("additionalProperties"))...)
	}
	return errs
}

// validateExamples checks each example against the schema it sits in.
func validateExamples(s *apiextensions.JSONSchemaProps, p *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	if s.Example != nil {
		validator, _, err := apiservervalidation.NewSchemaValidator(s)
		if err != nil {
			errs = append(errs, field.Invalid(p, "", err.Error()))
		} else {
			errs = append(errs, apiservervalidation.ValidateCustomResource(p.Child("example"), *s.Example, validator)...)
		}
	}
	for name, prop := range s.Properties {
		errs = append(errs, validateExamples(&prop, p.Child("properties").Key(name))...)
	}
	if s.Items != nil && s.Items.Schema != nil {
		errs = append(errs, validateExamples(s.Items.Schema, p.Child("items"))...)
	}
	return errs
}

// Verdicts remembers validation results per (path, name, schema) for as
// long as some user, a ClusterClass, still has the variable, so unchanged variables are
// never validated twice and a deleted or changed one is forgotten. It is
// safe for concurrent use; each user must check through one Check at a
// time, as a controller reconciles one object at a time.
type Verdicts struct {
	// MaxEntries bounds the results kept; zero means
	// userfacing.DefaultVariableVerdictsMaxEntries. Beyond it, a new result
	// is returned but not kept.
	MaxEntries int

	mu      sync.Mutex
	results map[schemaKey]*result
	// usedBy are the keys each user's last Check committed.
	usedBy map[types.NamespacedName][]schemaKey
}

type schemaKey [sha256.Size]byte

// result is a validation outcome and how many users hold it.
type result struct {
	errs  field.ErrorList
	users int
}

// Check validates the variables of one user in one pass; Commit makes what
// it checked the user's, releasing what the user had before.
type Check struct {
	cache   *Verdicts
	user    types.NamespacedName
	checked map[schemaKey]field.ErrorList
}

// Check starts a pass of validations for user.
func (c *Verdicts) Check(user types.NamespacedName) *Check {
	return &Check{cache: c, user: user, checked: map[schemaKey]field.ErrorList{}}
}

// Validate returns the result for variable at fldPath, computing it only
// when no user holds it yet.
func (k *Check) Validate(variable clusterv1.ClusterClassVariable, fldPath *field.Path) field.ErrorList {
	data, err := json.Marshal(struct {
		Path     string
		Variable clusterv1.ClusterClassVariable
	}{fldPath.String(), variable})
	if err != nil {
		return Validate(variable, fldPath)
	}
	key := schemaKey(sha256.Sum256(data))
	if errs, ok := k.checked[key]; ok {
		return errs
	}
	k.cache.mu.Lock()
	cached, ok := k.cache.results[key]
	k.cache.mu.Unlock()
	var errs field.ErrorList
	if ok {
		errs = cached.errs
	} else {
		errs = Validate(variable, fldPath)
	}
	k.checked[key] = errs
	return errs
}

// Commit makes the results of this pass the user's: they stay cached, and
// those the user held before and no one holds now are dropped.
func (k *Check) Commit() {
	c := k.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.results == nil {
		c.results = map[schemaKey]*result{}
		c.usedBy = map[types.NamespacedName][]schemaKey{}
	}
	maxEntries := c.MaxEntries
	if maxEntries <= 0 {
		maxEntries = userfacing.DefaultVariableVerdictsMaxEntries
	}
	held := make([]schemaKey, 0, len(k.checked))
	for key, errs := range k.checked {
		r, ok := c.results[key]
		if !ok {
			if len(c.results) >= maxEntries {
				continue
			}
			r = &result{errs: errs}
			c.results[key] = r
		}
		r.users++
		held = append(held, key)
	}
	c.releaseLocked(k.user)
	if len(held) > 0 {
		c.usedBy[k.user] = held
	}
}

// Release drops what user holds, for a user that is gone.
func (c *Verdicts) Release(user types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.releaseLocked(user)
}

func (c *Verdicts) releaseLocked(user types.NamespacedName) {
	for _, key := range c.usedBy[user] {
		if r := c.results[key]; r != nil {
			if r.users--; r.users <= 0 {
				delete(c.results, key)
			}
		}
	}
	delete(c.usedBy, user)
}

// Len is the number of results kept.
func (c *Verdicts) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.results)
}
