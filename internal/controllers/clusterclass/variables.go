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
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/feature"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/objstatus"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/variableschema"
)

// reconcileVariables publishes status.variables and sets VariablesReady.
// It reports whether the variables are ready, and an error when an
// extension failed, or failed under failurePolicy Ignore, and the
// reconcile is worth retrying.
func (r *Reconciler) reconcileVariables(ctx context.Context, cc *clusterv1.ClusterClass, res *resolution) (bool, error) {
	discovered, retry := r.discoverPatches(ctx, cc, res)
	sources := append([]variableSource{{from: clusterv1.VariableDefinitionFromInline, variables: cc.Spec.Variables}}, discovered...)
	// What this pass checks becomes what the ClusterClass holds in the
	// schema cache; what it no longer has is forgotten.
	schemas := r.Schemas.Check(client.ObjectKeyFromObject(cc))
	defer func() {
		schemas.Commit()
		metrics.VariableSchemasCached.Set(float64(r.Schemas.Len()))
	}()
	var failures []string
	for _, src := range sources {
		failures = append(failures, src.check(schemas)...)
	}
	if len(failures) > 0 {
		// Keep the last good status.variables: a partial answer would make
		// Clusters fail validation against variables that still exist.
		// Extension failures are retried with backoff; a missing or
		// inadmissible handler waits for the registry or Namespace to change.
		setVariablesNotReady(cc, "Variables not updated, keeping the last known variables: "+strings.Join(failures, "; "))
		return false, retry
	}

	variables, conflicts := mergeVariables(sources)
	if problems := beyondStatusBounds(variables); len(problems) > 0 {
		// The CRD would refuse the write, and the reconcile would fail on
		// every retry: say why instead, keeping the last good variables.
		setVariablesNotReady(cc, "Variables not updated, keeping the last known variables: "+strings.Join(problems, "; "))
		return false, retry
	}
	cc.Status.Variables = variables
	if len(conflicts) > 0 {
		// Cluster API publishes the conflicting definitions and reports the
		// conflict as a failed variable discovery; so do we.
		setVariablesNotReady(cc, "Variables defined differently by several sources: "+strings.Join(conflicts, "; "))
		return false, retry
	}
	objstatus.SetCondition(cc, clusterv1.ClusterClassVariablesReadyCondition, metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason, "")
	objstatus.SetV1Beta1Condition(cc, clusterv1.ClusterClassVariablesReconciledV1Beta1Condition, corev1.ConditionTrue, "", "", "")
	return true, retry
}

// discoverPatches returns, in patch order, a source for every external
// patch with a discoverVariablesExtension, holding its variables or why it
// has none, and the last extension failure, failurePolicy Ignore's
// included: the reconcile is retried with backoff until the extension
// answers. A patch whose failure is ignored has no source: it adds no
// variables and fails nothing. While Cluster API's RuntimeSDK feature gate
// is off no extension is called, as in its ClusterClass controller.
func (r *Reconciler) discoverPatches(ctx context.Context, cc *clusterv1.ClusterClass, res *resolution) (sources []variableSource, retry error) {
	runtimeSDK := feature.Gates.Enabled(feature.RuntimeSDK)
	for _, patch := range cc.Spec.Patches {
		if patch.External == nil || patch.External.DiscoverVariablesExtension == "" || !runtimeSDK {
			continue
		}
		src := variableSource{from: patch.Name, where: fmt.Sprintf("patch %q (%s)", patch.Name, patch.External.DiscoverVariablesExtension)}
		vars, err := r.discover(ctx, client.ObjectKeyFromObject(cc), patch, res)
		switch {
		case errors.As(err, new(*ignoredCall)):
			// Cluster API's client answers it with an empty success: the
			// patch adds no variables, which does not fail the others.
			retry = fmt.Errorf("%s: failurePolicy Ignore, so it adds no variables until it answers: %w", src.where, err)
			continue
		case errors.As(err, new(*callError)):
			src.failed = fmt.Sprintf("%s: %v", src.where, err)
			retry = err
		case err != nil:
			src.failed = fmt.Sprintf("%s: %v", src.where, err)
		default:
			src.variables = vars
		}
		sources = append(sources, src)
	}
	return sources, retry
}

// setVariablesNotReady sets VariablesReady, and the VariablesReconciled
// condition v1beta1 clients read, to False with Cluster API's reasons.
func setVariablesNotReady(cc *clusterv1.ClusterClass, message string) {
	objstatus.SetCondition(cc, clusterv1.ClusterClassVariablesReadyCondition, metav1.ConditionFalse,
		clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason, message)
	objstatus.SetV1Beta1Condition(cc, clusterv1.ClusterClassVariablesReconciledV1Beta1Condition, corev1.ConditionFalse,
		clusterv1.VariableDiscoveryFailedV1Beta1Reason, clusterv1.ConditionSeverityError, message)
}

// variableSource is where variables come from: the ClusterClass itself
// (inline) or one patch's extension.
type variableSource struct {
	// from is the definition's from in status.variables.
	from      string
	variables []clusterv1.ClusterClassVariable
	// where names a patch's source in messages; empty for inline variables.
	where string
	// failed says why a patch's extension gave no variables.
	failed string
}

// check returns why the source cannot be published: its extension failed,
// or one of its schemas is invalid. An extension's schemas are checked
// like inline ones: a schema Clusters cannot be validated against must
// never be published.
func (s variableSource) check(schemas *variableschema.Check) []string {
	if s.failed != "" {
		return []string{s.failed}
	}
	var failures []string
	for i, v := range s.variables {
		if errs := schemas.Validate(v, s.path(i, v)); len(errs) > 0 {
			failures = append(failures, s.invalid(v, errs))
		}
	}
	return failures
}

// path is where the errors of the source's variable i are reported: its
// place in spec.variables for an inline one, its name for an extension's.
func (s variableSource) path(i int, v clusterv1.ClusterClassVariable) *field.Path {
	if s.where == "" {
		return field.NewPath("spec", "variables").Index(i)
	}
	return field.NewPath("variables").Key(v.Name)
}

// invalid says that the source's variable v is invalid, and why.
func (s variableSource) invalid(v clusterv1.ClusterClassVariable, errs field.ErrorList) string {
	if s.where == "" {
		return fmt.Sprintf("inline variable %q is invalid: %v", v.Name, errs.ToAggregate())
	}
	return fmt.Sprintf("%s: variable %q is invalid: %v", s.where, v.Name, errs.ToAggregate())
}

// mergeVariables builds status.variables: one entry per variable name,
// sorted by name, with a definition per source in source order (inline
// first, then patches), and the names whose definitions differ.
func mergeVariables(sources []variableSource) ([]clusterv1.ClusterClassStatusVariable, []string) {
	byName := map[string]*clusterv1.ClusterClassStatusVariable{}
	for _, src := range sources {
		for _, v := range src.variables {
			sv, ok := byName[v.Name]
			if !ok {
				sv = &clusterv1.ClusterClassStatusVariable{Name: v.Name}
				byName[v.Name] = sv
			}
			sv.Definitions = append(sv.Definitions, clusterv1.ClusterClassStatusVariableDefinition{
				From: src.from,
				// The API requires it in status; unset means not required.
				Required:                  ptr.To(ptr.Deref(v.Required, false)),
				DeprecatedV1Beta1Metadata: *v.DeprecatedV1Beta1Metadata.DeepCopy(),
				Schema:                    *v.Schema.DeepCopy(),
			})
		}
	}
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	sort.Strings(names)
	variables := make([]clusterv1.ClusterClassStatusVariable, 0, len(names))
	var conflicts []string
	for _, name := range names {
		sv := byName[name]
		conflict := false
		first := sv.Definitions[0]
		for _, d := range sv.Definitions[1:] {
			if ptr.Deref(d.Required, false) != ptr.Deref(first.Required, false) ||
				!equality.Semantic.DeepEqual(withoutFalseFlags(&d.Schema.OpenAPIV3Schema), withoutFalseFlags(&first.Schema.OpenAPIV3Schema)) ||
				!equality.Semantic.DeepEqual(d.DeprecatedV1Beta1Metadata, first.DeprecatedV1Beta1Metadata) {
				conflict = true
			}
		}
		sv.DefinitionsConflict = ptr.To(conflict)
		if conflict {
			froms := make([]string, 0, len(sv.Definitions))
			for _, d := range sv.Definitions {
				froms = append(froms, d.From)
			}
			conflicts = append(conflicts, fmt.Sprintf("%q (from %s)", name, strings.Join(froms, ", ")))
		}
		variables = append(variables, *sv)
	}
	return variables, conflicts
}

// Bounds the ClusterClass CRD puts on status.variables.
const (
	maxStatusVariables   = 1000
	maxDefinitionsPerVar = 100
)

// beyondStatusBounds names what in variables the CRD would refuse.
func beyondStatusBounds(variables []clusterv1.ClusterClassStatusVariable) []string {
	var problems []string
	if len(variables) > maxStatusVariables {
		problems = append(problems, fmt.Sprintf("%d variables in all, more than the %d ClusterClass status holds", len(variables), maxStatusVariables))
	}
	for _, v := range variables {
		if len(v.Definitions) > maxDefinitionsPerVar {
			problems = append(problems, fmt.Sprintf("variable %q has %d definitions, more than the %d ClusterClass status holds", v.Name, len(v.Definitions), maxDefinitionsPerVar))
		}
	}
	return problems
}

// withoutFalseFlags returns a copy of a schema without the boolean flags
// set to false (uniqueItems, exclusiveMinimum and exclusiveMaximum,
// x-kubernetes-preserve-unknown-fields, x-kubernetes-int-or-string), at
// every depth: false says the same as leaving the flag out, so two
// definitions differing only there do not conflict, as in Cluster API.
func withoutFalseFlags(in *clusterv1.JSONSchemaProps) *clusterv1.JSONSchemaProps {
	if in == nil {
		return nil
	}
	out := in.DeepCopy()
	for _, flag := range []**bool{&out.UniqueItems, &out.ExclusiveMaximum, &out.ExclusiveMinimum, &out.XPreserveUnknownFields, &out.XIntOrString} {
		if !ptr.Deref(*flag, false) {
			*flag = nil
		}
	}
	for name, property := range out.Properties {
		out.Properties[name] = *withoutFalseFlags(&property)
	}
	out.AdditionalProperties = withoutFalseFlags(out.AdditionalProperties)
	out.Items = withoutFalseFlags(out.Items)
	out.Not = withoutFalseFlags(out.Not)
	for _, list := range [][]clusterv1.JSONSchemaProps{out.AllOf, out.OneOf, out.AnyOf} {
		for i := range list {
			list[i] = *withoutFalseFlags(&list[i])
		}
	}
	return out
}
