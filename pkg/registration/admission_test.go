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

package registration

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Cluster API's reading: a nil selector admits nothing, the empty one all.
func TestAdmits_ReadsSelectorsAsClusterAPIDoes(t *testing.T) {
	team := map[string]string{"team": "a"}
	tests := []struct {
		name     string
		selector *metav1.LabelSelector
		labels   map[string]string
		want     bool
		wantErr  bool
	}{
		{name: "nil, namespace without labels", selector: nil, labels: nil, want: false},
		{name: "nil, namespace with labels", selector: nil, labels: team, want: false},
		{name: "empty admits all", selector: &metav1.LabelSelector{}, labels: nil, want: true},
		{name: "empty with empty lists admits all", selector: &metav1.LabelSelector{MatchLabels: map[string]string{}, MatchExpressions: []metav1.LabelSelectorRequirement{}}, labels: team, want: true},
		{name: "match", selector: &metav1.LabelSelector{MatchLabels: team}, labels: team, want: true},
		{name: "no match", selector: &metav1.LabelSelector{MatchLabels: team}, labels: map[string]string{"team": "b"}, want: false},
		{name: "expression", selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"b"}}}}, labels: team, want: true},
		{name: "invalid operator", selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: "Sometimes"}}}, wantErr: true},
	}
	for _, tt := range tests {
		got, err := Admits(tt.selector, tt.labels)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%s: Admits = %v, %v; want %v (error %v)", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}
