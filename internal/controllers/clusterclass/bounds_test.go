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
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// Answers the ClusterClass CRD would refuse are refused before the status
// write, with a condition saying why, instead of a write that fails on
// every retry.
func TestReconcile_RefusesVariablesBeyondTheCRDsBounds(t *testing.T) {
	startManager(t)
	many := make([]clusterv1.ClusterClassVariable, 1001)
	for i := range many {
		many[i] = stringVariable(fmt.Sprintf("v%04d", i), false)
	}
	tests := []struct {
		name    string
		answer  []clusterv1.ClusterClassVariable
		message string
	}{
		{"too-many", many, "1001 variables in all, more than the 1000 ClusterClass status holds"},
		{"long-name", []clusterv1.ClusterClassVariable{stringVariable(strings.Repeat("n", 300), false)}, "may not be more than 256 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ext := startExtension(t, tt.answer...)
			config := createExtensionConfig(t, ext, nil)
			ns := env.Namespace(t, nil)
			create(t, newClusterClass(ns, "cc", config))
			cc := waitVariablesReady(t, ns, "cc", metav1.ConditionFalse, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason, tt.message)
			if len(cc.Status.Variables) != 0 {
				t.Errorf("published %d variables", len(cc.Status.Variables))
			}
		})
	}
}
