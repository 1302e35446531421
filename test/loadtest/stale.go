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

package loadtest

import (
	"context"
	"maps"

	"k8s.io/apimachinery/pkg/api/meta"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/benchfixture"
)

// staleClasses counts the ClusterClasses whose status is not what the
// fixture's current objects call for: VariablesReady True exactly when every
// referenced config admits the namespace, and then the variables of the
// spec and of what every extension answers now, each from its source. It is
// how a row tells a controller that went quiet with a stale status from one
// that converged.
func (r *run) staleClasses(ctx context.Context) (int, error) {
	list := &clusterv1.ClusterClassList{}
	if err := r.client.List(ctx, list); err != nil {
		return 0, err
	}
	byKey := map[client.ObjectKey]*clusterv1.ClusterClass{}
	for i := range list.Items {
		byKey[client.ObjectKeyFromObject(&list.Items[i])] = &list.Items[i]
	}
	stale := 0
	for _, cf := range r.fixture.classes {
		cc, ok := byKey[client.ObjectKey{Namespace: cf.namespace, Name: cf.name}]
		if !ok || !r.fixture.statusIsCurrent(cf, cc) {
			stale++
		}
	}
	return stale, nil
}

// statusIsCurrent compares cc's status with what cf calls for now.
func (f *fixture) statusIsCurrent(cf classFixture, cc *clusterv1.ClusterClass) bool {
	ready := meta.IsStatusConditionTrue(cc.Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition)
	if !f.admittedEverywhere(cf) {
		// The last good variables stay; only the condition must say so.
		return !ready
	}
	if !ready {
		return false
	}
	want := map[string]map[string]bool{}
	add := func(name, from string) {
		if want[name] == nil {
			want[name] = map[string]bool{}
		}
		want[name][from] = true
	}
	for _, v := range cc.Spec.Variables {
		add(v.Name, clusterv1.VariableDefinitionFromInline)
	}
	for _, i := range cf.configs {
		for _, name := range f.configs[i].variables {
			add(name, benchfixture.PatchName(f.configs[i].name))
		}
	}
	got := map[string]map[string]bool{}
	for _, v := range cc.Status.Variables {
		got[v.Name] = map[string]bool{}
		for _, d := range v.Definitions {
			got[v.Name][d.From] = true
		}
	}
	return maps.EqualFunc(want, got, maps.Equal)
}
