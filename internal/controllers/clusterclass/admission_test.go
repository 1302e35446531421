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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// Admission is not part of Discovery: a namespaceSelector edited while the
// extension's Discovery fails admits and rejects namespaces at once.
func TestAdmission_FollowsTheSelectorWhileDiscoveryFails(t *testing.T) {
	startManager(t)
	ext := startExtension(t, stringVariable("region", true))
	config := createExtensionConfig(t, ext, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}})
	teamA := env.Namespace(t, map[string]string{"team": "a"})
	teamB := env.Namespace(t, map[string]string{"team": "b"})
	create(t, newClusterClass(teamA, "cc", config))
	create(t, newClusterClass(teamB, "cc", config))
	waitVariablesReady(t, teamA, "cc", metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason)
	waitVariablesReady(t, teamB, "cc", metav1.ConditionFalse, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason, "not admitted")

	ext.Server.SetFaults("Discovery", sampleextension.Faults{ErrorRate: 1})
	setSelector(t, config, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "b"}})
	waitVariablesReady(t, teamB, "cc", metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason)
	waitVariablesReady(t, teamA, "cc", metav1.ConditionFalse, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason, "not admitted")
}

// An ExtensionConfig stored with a nil namespaceSelector (no webhook
// defaulted it to {}) admits no namespace, as in Cluster API. VariablesReady
// is then what Cluster API's controller writes when its runtime client
// refuses the call: False, reason VariableDiscoveryFailed (and
// VariablesReconciled False, severity Error), no variables, the generation
// not observed, and no call made. Setting the selector to {} flips
// admission and reaches the ClusterClass with no resync.
func TestAdmission_ANilSelectorAdmitsNoNamespace(t *testing.T) {
	startManager(t)
	ext := startExtension(t, stringVariable("region", true))
	config := createExtensionConfigAsStored(t, ext, nil)
	ns := env.Namespace(t, map[string]string{"team": "a"})
	create(t, newClusterClass(ns, "cc", config))

	cc := waitVariablesReady(t, ns, "cc", metav1.ConditionFalse, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason,
		`patch "external"`, "namespaceSelector did not match object "+ns+"/cc", "keeping the last known variables")
	checkCaughtAsClusterAPIDoes(t, cc)
	if n := ext.Server.Calls()[discoverVariables]; n != 0 {
		t.Errorf("%d DiscoverVariables calls for a namespace the selector does not admit", n)
	}

	setSelector(t, config, &metav1.LabelSelector{})
	cc = waitVariablesReady(t, ns, "cc", metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason)
	if got := variableNames(cc); got != "region<external>" {
		t.Errorf("status.variables = %s, want region<external>", got)
	}
}

// checkCaughtAsClusterAPIDoes checks the parts of a refused DiscoverVariables
// call's status that Cluster API's ClusterClass controller writes besides
// VariablesReady: the v1beta1 condition, no variables, no observed
// generation; and our ExtensionsResolved in the same words.
func checkCaughtAsClusterAPIDoes(t *testing.T, cc *clusterv1.ClusterClass) {
	t.Helper()
	var v1beta1 *clusterv1.Condition
	if d := cc.Status.Deprecated; d != nil && d.V1Beta1 != nil {
		for i := range d.V1Beta1.Conditions {
			if d.V1Beta1.Conditions[i].Type == clusterv1.ClusterClassVariablesReconciledV1Beta1Condition {
				v1beta1 = &d.V1Beta1.Conditions[i]
			}
		}
	}
	if v1beta1 == nil || v1beta1.Status != corev1.ConditionFalse || v1beta1.Reason != clusterv1.VariableDiscoveryFailedV1Beta1Reason ||
		v1beta1.Severity != clusterv1.ConditionSeverityError {
		t.Errorf("VariablesReconciled = %+v, want False, %s, severity Error", v1beta1, clusterv1.VariableDiscoveryFailedV1Beta1Reason)
	}
	if len(cc.Status.Variables) != 0 {
		t.Errorf("status.variables = %s, want none", variableNames(cc))
	}
	if cc.Status.ObservedGeneration == cc.Generation {
		t.Error("observedGeneration advanced although discovery failed")
	}
	resolved := meta.FindStatusCondition(cc.Status.Conditions, userfacing.ExtensionsResolvedCondition)
	if resolved == nil || resolved.Status != metav1.ConditionFalse || !strings.Contains(resolved.Message, "namespaceSelector did not match") {
		t.Errorf("ExtensionsResolved = %+v, want False naming the selector", resolved)
	}
}

// setSelector writes an ExtensionConfig's namespaceSelector.
func setSelector(t *testing.T, config string, selector *metav1.LabelSelector) {
	t.Helper()
	env.Skip(t)
	ctx := context.Background()
	got := &runtimev1.ExtensionConfig{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: config}, got); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(got.DeepCopy())
	got.Spec.NamespaceSelector = selector
	if err := env.Client.Patch(ctx, got, patch); err != nil {
		t.Fatal(err)
	}
}
