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

package watchfilter

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

func TestMatches(t *testing.T) {
	tests := []struct {
		name   string
		labels map[string]string
		value  string
		want   bool
	}{
		{"no filter takes everything", nil, "", true},
		{"no filter takes labelled objects too", map[string]string{clusterv1.WatchLabel: "a"}, "", true},
		{"a filter takes its own", map[string]string{clusterv1.WatchLabel: "a"}, "a", true},
		{"a filter leaves another's", map[string]string{clusterv1.WatchLabel: "b"}, "a", false},
		{"a filter leaves unlabelled objects", map[string]string{"other": "a"}, "a", false},
	}
	for _, tt := range tests {
		obj := &clusterv1.ClusterClass{ObjectMeta: metav1.ObjectMeta{Labels: tt.labels}}
		if got := Matches(obj, tt.value); got != tt.want {
			t.Errorf("%s: Matches = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestLabelChanged(t *testing.T) {
	with := func(labels map[string]string) *clusterv1.ClusterClass {
		return &clusterv1.ClusterClass{ObjectMeta: metav1.ObjectMeta{Labels: labels}}
	}
	a := map[string]string{clusterv1.WatchLabel: "a"}
	tests := []struct {
		name     string
		old, new map[string]string
		want     bool
	}{
		{"labelled", nil, a, true},
		{"unlabelled", a, nil, true},
		{"moved", a, map[string]string{clusterv1.WatchLabel: "b"}, true},
		{"other labels only", map[string]string{"x": "1"}, map[string]string{"x": "2"}, false},
		{"unchanged", a, map[string]string{clusterv1.WatchLabel: "a", "x": "1"}, false},
	}
	for _, tt := range tests {
		if got := LabelChanged(with(tt.old), with(tt.new)); got != tt.want {
			t.Errorf("%s: LabelChanged = %v, want %v", tt.name, got, tt.want)
		}
	}
}
