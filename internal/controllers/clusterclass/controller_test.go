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

package clusterclass_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/cluster-api/feature"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/apiservertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextensiontest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

var env *apiservertest.Env

func TestMain(m *testing.M) {
	// As Cluster API's own suite: its ClusterClass controller runs under
	// these gates, and so does ours.
	if err := managertest.TurnOnRuntimeSDK(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(apiservertest.Run(m, &env))
}

const (
	eventually        = 60 * time.Second
	discoverVariables = "DiscoverVariables/" + sampleextension.DiscoverVariablesHandler
)

// startManager runs both controllers, their shared registry and call
// caches as the drop-in wires them, on a manager of their own until the
// test ends.
func startManager(t *testing.T) ctrl.Manager {
	t.Helper()
	return startManagerWith(t, managertest.Options{})
}

// startManagerWith starts the manager with test defaults under opts.
func startManagerWith(t *testing.T, opts managertest.Options) ctrl.Manager {
	t.Helper()
	env.Skip(t)
	if opts.Controllers.ClusterClassConcurrency == 0 {
		opts.Controllers.ClusterClassConcurrency = 20
	}
	return managertest.StartControllers(t, env.Config, opts)
}

type extension = sampleextension.Running

// startExtension serves a sample extension whose DiscoverVariables
// handler answers vars, as in the ExtensionConfig controller's tests.
var startExtension = sampleextensiontest.StartWithVariables

// createExtensionConfig creates an ExtensionConfig with a generated name
// calling e, deleted when the test ends, and returns its name. A nil
// selector is stored as {}, which admits every namespace, as Cluster API's
// defaulting webhook writes it; no webhook runs here.
func createExtensionConfig(t *testing.T, e *extension, selector *metav1.LabelSelector) string {
	t.Helper()
	if selector == nil {
		selector = &metav1.LabelSelector{}
	}
	return createExtensionConfigAsStored(t, e, selector)
}

// createExtensionConfigAsStored is createExtensionConfig with the selector
// stored as given, nil included.
func createExtensionConfigAsStored(t *testing.T, e *extension, selector *metav1.LabelSelector) string {
	t.Helper()
	name := "ext-" + rand.String(6)
	env.CreateExtensionConfig(t, &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: runtimev1.ExtensionConfigSpec{
			ClientConfig:      runtimev1.ClientConfig{URL: e.URL, CABundle: e.CA},
			NamespaceSelector: selector,
		},
	})
	return name
}

func stringVariable(name string, required bool) clusterv1.ClusterClassVariable {
	return clusterv1.ClusterClassVariable{
		Name:     name,
		Required: ptr.To(required),
		Schema:   clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{Type: "string"}},
	}
}

func newClusterClass(namespace, name, extensionConfig string, inline ...clusterv1.ClusterClassVariable) *clusterv1.ClusterClass {
	cc := apiservertest.ClusterClass(namespace, name, apiservertest.ExternalPatch("external", clusterv1.ExternalPatchDefinition{
		DiscoverVariablesExtension: registration.FullHandlerName(sampleextension.DiscoverVariablesHandler, extensionConfig),
		Settings:                   map[string]string{"flavour": "test"},
	}))
	cc.Spec.Variables = inline
	return cc
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	env.Skip(t)
	if err := env.Client.Create(context.Background(), obj); err != nil {
		t.Fatalf("create %s: %v", obj.GetName(), err)
	}
}

func get(t *testing.T, namespace, name string) *clusterv1.ClusterClass {
	t.Helper()
	env.Skip(t)
	cc := &clusterv1.ClusterClass{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, cc); err != nil {
		t.Fatal(err)
	}
	return cc
}

func waitVariablesReady(t *testing.T, namespace, name string, status metav1.ConditionStatus, reason string, messageParts ...string) *clusterv1.ClusterClass {
	t.Helper()
	var cc *clusterv1.ClusterClass
	polltest.Eventually(t, eventually, fmt.Sprintf("%s/%s VariablesReady=%s", namespace, name, status), func() (bool, string) {
		cc = get(t, namespace, name)
		c := meta.FindStatusCondition(cc.Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition)
		if c == nil {
			return false, "no condition"
		}
		if c.Status != status || c.Reason != reason {
			return false, fmt.Sprintf("%s/%s: %s", c.Status, c.Reason, c.Message)
		}
		for _, part := range messageParts {
			if !strings.Contains(c.Message, part) {
				return false, "message lacks " + part + ": " + c.Message
			}
		}
		return true, ""
	})
	return cc
}

func variableNames(cc *clusterv1.ClusterClass) string {
	var parts []string
	for _, v := range cc.Status.Variables {
		var froms []string
		for _, d := range v.Definitions {
			froms = append(froms, d.From)
		}
		parts = append(parts, v.Name+"<"+strings.Join(froms, ",")+">")
	}
	return strings.Join(parts, " ")
}

func TestReconcile_PublishesInlineAndDiscoveredVariablesEvenWhenTheConfigComesLater(t *testing.T) {
	startManager(t)
	// An extension may leave required unset; status needs it, as false.
	unsetRequired := stringVariable("region", false)
	unsetRequired.Required = nil
	ext := startExtension(t, stringVariable("size", true), unsetRequired)
	ns := env.Namespace(t, nil)

	// The ClusterClass names a config that does not exist yet.
	name := "ext-later-" + rand.String(6)
	create(t, newClusterClass(ns, "cc", name, stringVariable("zone", false)))
	waitVariablesReady(t, ns, "cc", metav1.ConditionFalse, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason,
		`patch "external"`, sampleextension.DiscoverVariablesHandler+"."+name, "not registered")

	env.CreateExtensionConfig(t, &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: runtimev1.ExtensionConfigSpec{
			ClientConfig:      runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA},
			NamespaceSelector: &metav1.LabelSelector{},
		},
	})

	cc := waitVariablesReady(t, ns, "cc", metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason)
	if got, want := variableNames(cc), "region<external> size<external> zone<inline>"; got != want {
		t.Errorf("status.variables = %s, want %s", got, want)
	}
	if region := cc.Status.Variables[0].Definitions[0]; region.Required == nil || *region.Required {
		t.Errorf("region published with required %v, want false", region.Required)
	}
	for _, v := range cc.Status.Variables {
		if v.DefinitionsConflict == nil || *v.DefinitionsConflict {
			t.Errorf("%s: definitionsConflict = %v, want false", v.Name, v.DefinitionsConflict)
		}
	}
	if cc.Status.ObservedGeneration != cc.Generation {
		t.Errorf("observedGeneration %d, generation %d", cc.Status.ObservedGeneration, cc.Generation)
	}
}

func TestReconcile_FlagsConflictingDefinitions(t *testing.T) {
	startManager(t)
	ext := startExtension(t, stringVariable("region", true))
	config := createExtensionConfig(t, ext, nil)
	ns := env.Namespace(t, nil)
	inline := clusterv1.ClusterClassVariable{
		Name: "region", Required: ptr.To(true),
		Schema: clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{Type: "integer"}},
	}
	create(t, newClusterClass(ns, "cc", config, inline))

	cc := waitVariablesReady(t, ns, "cc", metav1.ConditionFalse, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason, `"region" (from inline, external)`)
	if len(cc.Status.Variables) != 1 || !ptr.Deref(cc.Status.Variables[0].DefinitionsConflict, false) {
		t.Errorf("status.variables = %+v, want region flagged as conflicting", cc.Status.Variables)
	}
	if cc.Status.ObservedGeneration == cc.Generation {
		t.Error("observedGeneration advanced although the variables conflict")
	}
}

// publishedClusterClass runs the manager and an extension declaring "size",
// and waits until ClusterClass "cc" using it has published its variables.
func publishedClusterClass(t *testing.T) (ext *extension, config, namespace string, published *clusterv1.ClusterClass) {
	t.Helper()
	startManager(t)
	ext = startExtension(t, stringVariable("size", true))
	config = createExtensionConfig(t, ext, nil)
	namespace = env.Namespace(t, nil)
	create(t, newClusterClass(namespace, "cc", config))
	published = waitVariablesReady(t, namespace, "cc", metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason)
	return ext, config, namespace, published
}

func TestReconcile_FailedDiscoveryKeepsTheLastGoodVariablesThenFollowsTheExtension(t *testing.T) {
	ext, config, ns, good := publishedClusterClass(t)

	// The extension breaks, and its registration changes so the cached
	// answer no longer applies.
	ext.Server.SetFaults(discoverVariables, sampleextension.Faults{ErrorRate: 1})
	setSettings(t, config, map[string]string{"generation": "2"})
	failed := waitVariablesReady(t, ns, "cc", metav1.ConditionFalse, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason,
		`patch "external"`, sampleextension.DiscoverVariablesHandler+"."+config, "HTTP 500", "keeping the last known variables")
	if got, want := variableNames(failed), variableNames(good); got != want {
		t.Errorf("a failed discovery changed status.variables from %s to %s", want, got)
	}

	// It heals with a new answer: backoff retries pick it up.
	ext.Server.SetVariables(sampleextension.DiscoverVariablesHandler, []clusterv1.ClusterClassVariable{stringVariable("size", true), stringVariable("colour", false)})
	ext.Server.ResetFaults()
	healed := waitVariablesReady(t, ns, "cc", metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason)
	if got, want := variableNames(healed), "colour<external> size<external>"; got != want {
		t.Errorf("after healing status.variables = %s, want %s", got, want)
	}
}

func TestReconcile_InvalidSchemaFromTheExtensionIsNotPublished(t *testing.T) {
	ext, config, ns, good := publishedClusterClass(t)

	// The extension now declares a default that does not fit its type, and
	// a CEL rule that does not compile.
	invalid := stringVariable("replicas", true)
	invalid.Schema.OpenAPIV3Schema = clusterv1.JSONSchemaProps{
		Type:         "object",
		Properties:   map[string]clusterv1.JSONSchemaProps{"count": {Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte(`"three"`)}}},
		XValidations: []clusterv1.ValidationRule{{Rule: "self.count >"}},
	}
	ext.Server.SetVariables(sampleextension.DiscoverVariablesHandler, []clusterv1.ClusterClassVariable{stringVariable("size", true), invalid})
	setSettings(t, config, map[string]string{"revision": "2"})

	failed := waitVariablesReady(t, ns, "cc", metav1.ConditionFalse, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason,
		`patch "external"`, `variable "replicas" is invalid`, "variables[replicas].schema.openAPIV3Schema.x-kubernetes-validations[0].rule",
		"keeping the last known variables")
	if got, want := variableNames(failed), variableNames(good); got != want {
		t.Errorf("an invalid schema changed status.variables from %s to %s", want, got)
	}
}

func TestReconcile_NamespaceNotAdmittedMakesNoCall(t *testing.T) {
	startManager(t)
	ext := startExtension(t, stringVariable("size", true))
	config := createExtensionConfig(t, ext, &metav1.LabelSelector{MatchLabels: map[string]string{"runtime-sdk": "allowed"}})
	ns := env.Namespace(t, map[string]string{"runtime-sdk": "denied"})
	create(t, newClusterClass(ns, "cc", config))

	waitVariablesReady(t, ns, "cc", metav1.ConditionFalse, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason,
		fmt.Sprintf("namespace %q is not admitted", ns), config, "no call made")
	if calls := ext.Server.Calls()[discoverVariables]; calls != 0 {
		t.Errorf("%d DiscoverVariables calls for a namespace the selector rejects", calls)
	}
}

func TestReconcile_TwoHundredClusterClassesSharingAHandlerCostOneCallPerRegistration(t *testing.T) {
	ext := startExtension(t, stringVariable("size", true))
	config := createExtensionConfig(t, ext, nil)
	ns := env.Namespace(t, nil)
	const n = 200
	for i := range n {
		create(t, newClusterClass(ns, fmt.Sprintf("cc-%03d", i), config))
	}
	// Started after the objects exist, so the initial sync hands all 200
	// to 20 concurrent workers at once.
	startManager(t)
	waitAll := func(want string) {
		// 200 status writes and template patches at the client's 20 QPS,
		// under -race on a loaded machine: the test counts calls, so give
		// the writes time.
		polltest.Eventually(t, 3*eventually, fmt.Sprintf("all %d ClusterClasses publish %s", n, want), func() (bool, string) {
			list := &clusterv1.ClusterClassList{}
			if err := env.Client.List(context.Background(), list, client.InNamespace(ns)); err != nil {
				return false, err.Error()
			}
			done := 0
			for i := range list.Items {
				c := meta.FindStatusCondition(list.Items[i].Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition)
				if c != nil && c.Status == metav1.ConditionTrue && variableNames(&list.Items[i]) == want {
					done++
				}
			}
			return done == n, fmt.Sprintf("%d of %d", done, n)
		})
	}
	handler := registration.FullHandlerName(sampleextension.DiscoverVariablesHandler, config)
	calls := func(outcome string) float64 {
		return testutil.ToFloat64(metrics.ExtensionCalls.WithLabelValues("DiscoverVariables", handler, outcome))
	}
	waitAll("size<external>")
	if calls := ext.Server.Calls()[discoverVariables]; calls != 1 {
		t.Fatalf("%d DiscoverVariables calls for %d ClusterClasses with one handler and settings, want 1", calls, n)
	}
	// The metrics say the same: one call, every other request answered by
	// the cache or by joining that call.
	if calls(metrics.CallSuccess) != 1 || calls(metrics.CallError) != 0 || calls(metrics.CallCacheHit)+calls(metrics.CallShared) < n-1 {
		t.Errorf("runtime_sdk_extension_calls_total: success %v, error %v, cache_hit %v, shared %v",
			calls(metrics.CallSuccess), calls(metrics.CallError), calls(metrics.CallCacheHit), calls(metrics.CallShared))
	}

	ext.Server.SetVariables(sampleextension.DiscoverVariablesHandler, []clusterv1.ClusterClassVariable{stringVariable("size", true), stringVariable("zone", false)})
	setSettings(t, config, map[string]string{"revision": "2"})
	waitAll("size<external> zone<external>")
	if calls := ext.Server.Calls()[discoverVariables]; calls != 2 {
		t.Fatalf("%d DiscoverVariables calls after one registration change, want 2", calls)
	}
}

// setSettings changes an ExtensionConfig's spec.settings, which changes the
// fingerprint of every handler it registers.
func setSettings(t *testing.T, name string, settings map[string]string) {
	t.Helper()
	env.Skip(t)
	ext := &runtimev1.ExtensionConfig{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Name: name}, ext); err != nil {
		t.Fatal(err)
	}
	ext.Spec.Settings = settings
	if err := env.Client.Update(context.Background(), ext); err != nil {
		t.Fatal(err)
	}
}

// With a watch filter, as Cluster API's --watch-filter, only ClusterClasses
// labelled with its value are reconciled; the others are left to another
// manager.
func TestReconcile_WatchFilterLeavesOtherClassesAlone(t *testing.T) {
	ns := env.Namespace(t, nil)
	// Both exist before the manager starts, so both are in its first list,
	// which comes in name order; one worker takes "a-theirs" before
	// "b-mine": once "b-mine" is done, "a-theirs" would have been too.
	create(t, apiservertest.ClusterClass(ns, "a-theirs"))
	mine := apiservertest.ClusterClass(ns, "b-mine")
	mine.Labels = map[string]string{clusterv1.WatchLabel: "shard-a"}
	create(t, mine)
	startManagerWith(t, managertest.Options{Controllers: controllers.Options{WatchFilterValue: "shard-a", ClusterClassConcurrency: 1}})

	waitVariablesReady(t, ns, "b-mine", metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason)
	theirs := get(t, ns, "a-theirs")
	if len(theirs.Status.Conditions) != 0 || theirs.Status.ObservedGeneration != 0 {
		t.Errorf("an unlabelled ClusterClass was reconciled: observedGeneration %d, conditions %v", theirs.Status.ObservedGeneration, theirs.Status.Conditions)
	}
	// Labelled later, it becomes this manager's: the label change alone
	// brings it in.
	theirs.Labels = map[string]string{clusterv1.WatchLabel: "shard-a"}
	if err := env.Client.Update(context.Background(), theirs); err != nil {
		t.Fatal(err)
	}
	waitVariablesReady(t, ns, "a-theirs", metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason)
}

// With Cluster API's RuntimeSDK gate off no ExtensionConfig is reconciled,
// and a ClusterClass publishes its inline variables and calls no extension
// for its external patch, as Cluster API's controller does then.
func TestReconcile_WithoutRuntimeSDKPublishesInlineVariablesOnly(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, feature.Gates, feature.RuntimeSDK, false)
	ext := startExtension(t, stringVariable("size", true))
	config := createExtensionConfig(t, ext, nil)
	startManager(t)
	ns := env.Namespace(t, nil)
	create(t, newClusterClass(ns, "cc", config, stringVariable("zone", false)))

	cc := waitVariablesReady(t, ns, "cc", metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason)
	if got, want := variableNames(cc), "zone<inline>"; got != want {
		t.Errorf("status.variables = %s, want %s", got, want)
	}
	if n := ext.Server.Calls()[discoverVariables]; n != 0 {
		t.Errorf("%d DiscoverVariables calls, want none", n)
	}
}
