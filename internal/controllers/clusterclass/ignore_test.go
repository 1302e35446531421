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
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextensiontest"
)

// A DiscoverVariables handler with failurePolicy Ignore whose calls fail
// (HTTP 500) adds no variables, and the ClusterClass is ready with the
// others, as Cluster API writes it. The failure is retried with backoff,
// not cached as an answer: once the extension answers, its variables are
// published, without any event or resync.
func TestReconcile_FailurePolicyIgnorePublishesTheOtherVariablesUntilTheHandlerAnswers(t *testing.T) {
	startManager(t)
	ext := sampleextensiontest.Start(t, sampleextension.Options{
		Handlers:  sampleextension.WithFailurePolicy(sampleextension.DefaultHandlers(), sampleextension.DiscoverVariablesHandler, runtimehooksv1.FailurePolicyIgnore),
		Variables: map[string][]clusterv1.ClusterClassVariable{sampleextension.DiscoverVariablesHandler: {stringVariable("size", true)}},
	})
	ext.Server.SetFaults(discoverVariables, sampleextension.Faults{ErrorRate: 1})
	config := createExtensionConfig(t, ext, nil)
	ns := env.Namespace(t, nil)
	create(t, newClusterClass(ns, "cc", config, stringVariable("zone", false)))

	cc := waitVariablesReady(t, ns, "cc", metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason)
	if got, want := variableNames(cc), "zone<inline>"; got != want {
		t.Errorf("status.variables = %s, want %s", got, want)
	}
	if cc.Status.ObservedGeneration != cc.Generation {
		t.Errorf("observedGeneration %d, generation %d: Cluster API counts an ignored failure as success", cc.Status.ObservedGeneration, cc.Generation)
	}
	var v1beta1 *clusterv1.Condition
	if d := cc.Status.Deprecated; d != nil && d.V1Beta1 != nil {
		for i := range d.V1Beta1.Conditions {
			if d.V1Beta1.Conditions[i].Type == clusterv1.ClusterClassVariablesReconciledV1Beta1Condition {
				v1beta1 = &d.V1Beta1.Conditions[i]
			}
		}
	}
	if v1beta1 == nil || v1beta1.Status != corev1.ConditionTrue {
		t.Errorf("VariablesReconciled = %+v, want True", v1beta1)
	}
	polltest.Eventually(t, eventually, "the ignored failure retried", func() (bool, string) {
		calls := ext.Server.Calls()[discoverVariables]
		return calls >= 2, fmt.Sprintf("%d DiscoverVariables calls", calls)
	})

	ext.Server.ResetFaults()
	polltest.Eventually(t, eventually, "the handler's variables published once it answers", func() (bool, string) {
		got := variableNames(get(t, ns, "cc"))
		return got == "size<external> zone<inline>", "variables " + got
	})
	waitVariablesReady(t, ns, "cc", metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason)
}
