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

package variablestest

import (
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// Described is a required variable named name: an object of twenty typed,
// described, bounded string properties with an enum and a default each, one
// of them required and checked by a CEL rule. The variables cache's weighing
// tests and the memory test of its byte bound both measure this shape, so
// that the ratio of decoded to JSON size one states holds for the other.
func Described(name string) clusterv1.ClusterClassVariable {
	props := map[string]clusterv1.JSONSchemaProps{}
	for j := range 20 {
		props[fmt.Sprintf("field%02d", j)] = clusterv1.JSONSchemaProps{
			Type: "string", Description: strings.Repeat("d", 120), MaxLength: ptr.To[int64](63),
			Enum:    []apiextensionsv1.JSON{{Raw: []byte(`"small"`)}, {Raw: []byte(`"medium"`)}, {Raw: []byte(`"large"`)}},
			Default: &apiextensionsv1.JSON{Raw: []byte(`"small"`)},
		}
	}
	return clusterv1.ClusterClassVariable{
		Name: name, Required: ptr.To(true),
		Schema: clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{
			Type: "object", Properties: props, Required: []string{"field00"},
			XValidations: []clusterv1.ValidationRule{{Rule: "self.field00 != ''", Message: "field00 must be set"}},
		}},
	}
}
