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

package differential

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/minimalclass"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// Endpoint is where an extension answers and the CA it is trusted with.
type Endpoint struct {
	URL string
	CA  []byte
}

// Names of the fixture's ExtensionConfigs.
const (
	// ConfigAll admits every namespace (an explicit empty selector, which
	// Cluster API's defaulting webhook would have written).
	ConfigAll = "ext-all"
	// ConfigTeamA admits namespaces labelled team=a only.
	ConfigTeamA = "ext-team-a"
	// ConfigDown points at an address where nothing answers.
	ConfigDown = "ext-down"
	// ConfigOversized answers more variables than status.variables holds.
	ConfigOversized = "ext-oversized"
	// ConfigIgnoring advertises its DiscoverVariables handler with
	// failurePolicy Ignore (IgnoringHandlers) and fails every call to it.
	ConfigIgnoring = "ext-ignoring"
	// ConfigCAPITest is Cluster API's own test extension, which no one
	// here wrote, built on its server library.
	ConfigCAPITest = "ext-capi-test"
)

// OversizedVariables is how many variables ext-oversized answers: one more
// than the ClusterClass CRD's maxItems for status.variables.
const OversizedVariables = 1001

// Namespaces of the fixture.
const (
	NamespaceA     = "team-a" // team=a: admitted by every config
	NamespaceB     = "team-b" // team=b: not admitted by ext-team-a
	NamespaceOther = "other"  // no labels
)

// templateKinds are the fixture's template CRDs.
var templateKinds = []minimalclass.TemplateKind{
	minimalclass.InfrastructureCluster,
	{Group: "infrastructure.cluster.x-k8s.io", Kind: "GenericInfrastructureMachineTemplate", Versions: []string{"v1beta2"}, Contract: "v1beta2"},
	minimalclass.ControlPlane,
	{Group: "bootstrap.cluster.x-k8s.io", Kind: "GenericBootstrapConfigTemplate", Versions: []string{"v1beta2"}, Contract: "v1beta2"},
	// Serves an older version too: a ClusterClass still naming v1beta1 is
	// not on the latest apiVersion of the contract.
	{Group: "infrastructure.cluster.x-k8s.io", Kind: "LegacyInfrastructureClusterTemplate", Versions: []string{"v1beta1", "v1beta2"}, Contract: "v1beta1_v1beta2"},
}

// Fixture is every object of one differential run.
type Fixture struct {
	CRDs             []*apiextensionsv1.CustomResourceDefinition
	Namespaces       []*corev1.Namespace
	Templates        []*unstructured.Unstructured
	ExtensionConfigs []*runtimev1.ExtensionConfig
	ClusterClasses   []*clusterv1.ClusterClass
	// Settled is the status each object's main condition ends at (an
	// ExtensionConfig's Discovered, a ClusterClass's VariablesReady, or
	// Paused for a paused one), by "<namespace>/<name>": a manager has
	// settled only once every object is there, however slowly it starts.
	Settled map[string]metav1.ConditionStatus
	// TestExtension, when set, is Cluster API's test extension, which must
	// run beside each control plane the fixture is created on.
	TestExtension *capimanagement.TestExtension
	// RefusedByBaseline are the ClusterClasses whose status Cluster API
	// can never write in full, because the apiserver refuses part of it,
	// by "<namespace>/<name>": settling does not wait for them.
	RefusedByBaseline map[string]bool
}

// Options choose what the fixture holds.
type Options struct {
	// All, TeamA, Oversized and Ignoring are the extensions behind
	// ext-all, ext-team-a, ext-oversized and ext-ignoring (the last two
	// only in the unhealthy fixture).
	All, TeamA, Oversized, Ignoring Endpoint
	// CAPITest, when set, adds Cluster API's test extension behind
	// ext-capi-test and its in-memory ClusterClass, whose templates are
	// Cluster API's providers' kinds.
	CAPITest *CAPITestExtension
	// Healthy leaves out everything that makes a reconcile fail (the
	// unreachable config, conflicts, missing handlers and templates, a
	// namespace not admitted), for a manager that must reconcile without
	// error.
	Healthy bool
}

// CAPITestExtension is Cluster API's test extension and what the fixture
// needs of it: its process, the CRDs of the providers its ClusterClass's
// templates belong to (rendered from their config/crd, contract labels
// included, so that neither manager just reports missing templates), and
// the ClusterClass and templates Cluster API's e2e uses.
type CAPITestExtension struct {
	Process      *capimanagement.TestExtension
	CRDs         []*apiextensionsv1.CustomResourceDefinition
	Templates    []*unstructured.Unstructured
	ClusterClass *clusterv1.ClusterClass
}

// NewCAPITestExtension prepares Cluster API's test extension (started with
// each control plane) and renders its ClusterClass into NamespaceA.
func NewCAPITestExtension(ctx context.Context, binDir, dir string) (*CAPITestExtension, error) {
	process, err := capimanagement.NewTestExtension(dir)
	if err != nil {
		return nil, err
	}
	x := &CAPITestExtension{Process: process}
	for _, p := range []capimanagement.Provider{capimanagement.Bootstrap, capimanagement.ControlPlane, capimanagement.Infrastructure} {
		crds, err := capimanagement.CRDs(binDir, p, nil)
		if err != nil {
			return nil, err
		}
		x.CRDs = append(x.CRDs, crds...)
	}
	if x.Templates, x.ClusterClass, err = capimanagement.InMemoryClusterClass(ctx, binDir, ConfigCAPITest, NamespaceA); err != nil {
		return nil, err
	}
	return x, nil
}

// Variables the fixture's extensions return, by ExtensionConfig.
func Variables() map[string][]clusterv1.ClusterClassVariable {
	return map[string][]clusterv1.ClusterClassVariable{
		ConfigAll: {
			variable("region", true, clusterv1.JSONSchemaProps{Type: "string", Default: jsonValue(`"eu-1"`), Enum: jsonValues(`"eu-1"`, `"us-1"`)}),
			variable("replicas", false, clusterv1.JSONSchemaProps{Type: "integer", Minimum: ptr.To[int64](1)}),
			// uniqueItems: false is no constraint: Cluster API sees the same
			// definition as one that leaves it out.
			variable("tags", false, clusterv1.JSONSchemaProps{Type: "array", UniqueItems: ptr.To(false), Items: &clusterv1.JSONSchemaProps{Type: "string"}}),
		},
		ConfigTeamA: {
			variable("region", true, clusterv1.JSONSchemaProps{Type: "string", Default: jsonValue(`"eu-1"`), Enum: jsonValues(`"eu-1"`, `"us-1"`)}),
			variable("tags", false, clusterv1.JSONSchemaProps{Type: "array", Items: &clusterv1.JSONSchemaProps{Type: "string"}}),
			variable("zone", false, clusterv1.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](16)}),
		},
		ConfigOversized: oversized(),
	}
}

// IgnoringHandlers are what the extension behind ext-ignoring advertises:
// the sample extension's, with failurePolicy Ignore on DiscoverVariables.
func IgnoringHandlers() []runtimehooksv1.ExtensionHandler {
	return sampleextension.WithFailurePolicy(sampleextension.DefaultHandlers(), sampleextension.DiscoverVariablesHandler, runtimehooksv1.FailurePolicyIgnore)
}

// oversized is OversizedVariables valid string variables.
func oversized() []clusterv1.ClusterClassVariable {
	vars := make([]clusterv1.ClusterClassVariable, OversizedVariables)
	for i := range vars {
		vars[i] = variable(fmt.Sprintf("v%04d", i), false, clusterv1.JSONSchemaProps{Type: "string"})
	}
	return vars
}

func variable(name string, required bool, schema clusterv1.JSONSchemaProps) clusterv1.ClusterClassVariable {
	return clusterv1.ClusterClassVariable{Name: name, Required: ptr.To(required), Schema: clusterv1.VariableSchema{OpenAPIV3Schema: schema}}
}

func jsonValue(raw string) *apiextensionsv1.JSON { return &apiextensionsv1.JSON{Raw: []byte(raw)} }

func jsonValues(raw ...string) []apiextensionsv1.JSON {
	out := make([]apiextensionsv1.JSON, 0, len(raw))
	for _, r := range raw {
		out = append(out, *jsonValue(r))
	}
	return out
}

// NewFixture builds the fixture's objects.
func NewFixture(o Options) *Fixture {
	f := &Fixture{Settled: map[string]metav1.ConditionStatus{}, RefusedByBaseline: map[string]bool{}}
	for _, k := range templateKinds {
		f.CRDs = append(f.CRDs, minimalclass.CRD(k))
	}
	f.Namespaces = []*corev1.Namespace{
		{ObjectMeta: metav1.ObjectMeta{Name: NamespaceA, Labels: map[string]string{"team": "a"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: NamespaceB, Labels: map[string]string{"team": "b"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: NamespaceOther}},
	}
	for _, ns := range f.Namespaces {
		for _, k := range templateKinds {
			f.Templates = append(f.Templates, minimalclass.Template(ns.Name, k, "default"))
		}
	}

	f.ExtensionConfigs = []*runtimev1.ExtensionConfig{
		extensionConfig(ConfigAll, o.All, &metav1.LabelSelector{}),
		extensionConfig(ConfigTeamA, o.TeamA, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}),
	}
	if !o.Healthy {
		f.ExtensionConfigs = append(f.ExtensionConfigs,
			extensionConfig(ConfigDown, Endpoint{URL: "https://127.0.0.1:1", CA: o.All.CA}, &metav1.LabelSelector{}),
			extensionConfig(ConfigOversized, o.Oversized, &metav1.LabelSelector{}),
			extensionConfig(ConfigIgnoring, o.Ignoring, &metav1.LabelSelector{}))
		// The drop-in's response cache annotation, valid on one config and
		// not on another: it reports it in a condition only it writes.
		f.ExtensionConfigs[len(f.ExtensionConfigs)-1].Annotations = map[string]string{userfacing.ResponseCacheMaxAgeAnnotation: "10m"}
		f.ExtensionConfigs[len(f.ExtensionConfigs)-2].Annotations = map[string]string{userfacing.ResponseCacheMaxAgeAnnotation: "ten minutes"}
	}
	for _, ext := range f.ExtensionConfigs {
		f.Settled["/"+ext.Name] = metav1.ConditionTrue
	}
	f.Settled["/"+ConfigDown] = metav1.ConditionFalse

	inline := []clusterv1.ClusterClassVariable{
		variable("cidr", true, clusterv1.JSONSchemaProps{Type: "string", Format: "cidr"}),
	}
	discover := func(config string) clusterv1.ClusterClassPatch {
		return clusterv1.ClusterClassPatch{Name: "patch-" + config, External: &clusterv1.ExternalPatchDefinition{
			GeneratePatchesExtension:   registration.FullHandlerName(sampleextension.GeneratePatchesHandler, config),
			DiscoverVariablesExtension: registration.FullHandlerName(sampleextension.DiscoverVariablesHandler, config),
		}}
	}
	add := func(namespace, name string, settled metav1.ConditionStatus, vars []clusterv1.ClusterClassVariable, patches ...clusterv1.ClusterClassPatch) *clusterv1.ClusterClass {
		f.Settled[namespace+"/"+name] = settled
		cc := clusterClass(namespace, name, "default")
		cc.Spec.Variables = vars
		cc.Spec.Patches = patches
		f.ClusterClasses = append(f.ClusterClasses, cc)
		return cc
	}
	add(NamespaceA, "inline-only", metav1.ConditionTrue, inline)
	add(NamespaceA, "discovered", metav1.ConditionTrue, inline, discover(ConfigAll))
	add(NamespaceA, "two-extensions", metav1.ConditionTrue, nil, discover(ConfigAll), discover(ConfigTeamA))
	add(NamespaceB, "discovered", metav1.ConditionTrue, inline, discover(ConfigAll))
	if x := o.CAPITest; x != nil {
		f.TestExtension = x.Process
		f.CRDs = append(f.CRDs, x.CRDs...)
		f.Templates = append(f.Templates, x.Templates...)
		ext := extensionConfig(ConfigCAPITest, Endpoint{URL: x.Process.URL, CA: x.Process.CA}, &metav1.LabelSelector{})
		// The test extension keys what it records by this setting.
		ext.Spec.Settings = map[string]string{"extensionConfigName": ConfigCAPITest}
		f.ExtensionConfigs = append(f.ExtensionConfigs, ext)
		f.Settled["/"+ConfigCAPITest] = metav1.ConditionTrue
		f.ClusterClasses = append(f.ClusterClasses, x.ClusterClass.DeepCopy())
		f.Settled[x.ClusterClass.Namespace+"/"+x.ClusterClass.Name] = metav1.ConditionTrue
	}
	if o.Healthy {
		return f
	}
	// replicas is an integer to ext-all: the same name as a string conflicts.
	add(NamespaceA, "conflict", metav1.ConditionFalse, []clusterv1.ClusterClassVariable{
		variable("replicas", false, clusterv1.JSONSchemaProps{Type: "string"}),
	}, discover(ConfigAll))
	add(NamespaceB, "not-admitted", metav1.ConditionFalse, inline, discover(ConfigTeamA))
	add(NamespaceOther, "extension-down", metav1.ConditionFalse, inline, discover(ConfigDown))
	add(NamespaceOther, "handler-missing", metav1.ConditionFalse, inline, clusterv1.ClusterClassPatch{Name: "missing", External: &clusterv1.ExternalPatchDefinition{
		DiscoverVariablesExtension: registration.FullHandlerName(sampleextension.DiscoverVariablesHandler, "no-such-config"),
	}})
	outdated := add(NamespaceB, "outdated-ref", metav1.ConditionTrue, inline)
	outdated.Spec.Infrastructure.TemplateRef = templateKinds[4].Ref("v1beta1", "default")
	missing := add(NamespaceB, "template-missing", metav1.ConditionTrue, inline)
	missing.Spec.ControlPlane.TemplateRef.Name = "no-such-template"
	paused := add(NamespaceA, "paused", metav1.ConditionTrue, inline, discover(ConfigAll))
	paused.Annotations = map[string]string{clusterv1.PausedAnnotation: ""}
	// Cluster API's patch of 1001 variables is refused on every retry
	// (its conditions, patched apart, say VariablesReady True); we refuse
	// the answer and say why.
	add(NamespaceOther, "oversized-variables", metav1.ConditionFalse, inline, discover(ConfigOversized))
	f.RefusedByBaseline[NamespaceOther+"/oversized-variables"] = true
	// Cluster API's client answers a failed call under failurePolicy Ignore
	// with an empty success: ready, with ext-all's and the inline variables.
	add(NamespaceA, "failure-ignored", metav1.ConditionTrue, inline, discover(ConfigAll), discover(ConfigIgnoring))
	return f
}

// Create creates every object, CRDs first, waiting for them to be served.
// Objects that exist already are left as they are.
func (f *Fixture) Create(ctx context.Context, c client.Client) error {
	var objs []client.Object
	for _, ns := range f.Namespaces {
		objs = append(objs, ns.DeepCopy())
	}
	for _, t := range f.Templates {
		objs = append(objs, t.DeepCopy())
	}
	for _, e := range f.ExtensionConfigs {
		objs = append(objs, e.DeepCopy())
	}
	for _, cc := range f.ClusterClasses {
		objs = append(objs, cc.DeepCopy())
	}
	for _, obj := range objs {
		if err := c.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create %T %s: %w", obj, client.ObjectKeyFromObject(obj), err)
		}
	}
	return nil
}

func extensionConfig(name string, e Endpoint, selector *metav1.LabelSelector) *runtimev1.ExtensionConfig {
	return &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: runtimev1.ExtensionConfigSpec{
			ClientConfig:      runtimev1.ClientConfig{URL: e.URL, CABundle: e.CA},
			NamespaceSelector: selector,
		},
	}
}

// clusterClass references the fixture's templates in namespace: the
// infrastructure cluster, control plane and its machines, and one
// MachineDeployment class, whose infrastructure template is the control
// plane machines' one again (Cluster API sets each ownerReference once).
func clusterClass(namespace, name, templates string) *clusterv1.ClusterClass {
	cc := &clusterv1.ClusterClass{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	cc.Spec.Infrastructure.TemplateRef = templateKinds[0].Ref("v1beta2", templates)
	cc.Spec.ControlPlane.TemplateRef = templateKinds[2].Ref("v1beta2", templates)
	cc.Spec.ControlPlane.MachineInfrastructure.TemplateRef = templateKinds[1].Ref("v1beta2", templates)
	cc.Spec.Workers.MachineDeployments = []clusterv1.MachineDeploymentClass{{
		Class:          "workers",
		Bootstrap:      clusterv1.MachineDeploymentClassBootstrapTemplate{TemplateRef: templateKinds[3].Ref("v1beta2", templates)},
		Infrastructure: clusterv1.MachineDeploymentClassInfrastructureTemplate{TemplateRef: templateKinds[1].Ref("v1beta2", templates)},
	}}
	return cc
}
