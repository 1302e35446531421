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

package releaseset

import (
	"debug/buildinfo"
	"runtime/debug"
	"slices"
	"testing"
)

func TestModules_CountsReplacementsAtTheirVersionAndFoldersByPath(t *testing.T) {
	info := &buildinfo.BuildInfo{
		Main: debug.Module{Path: "sigs.k8s.io/cluster-api", Version: "v1.14.2"},
		Deps: []*debug.Module{
			{Path: "k8s.io/api", Version: "v0.36.3"},
			{Path: "sigs.k8s.io/cluster-api/api", Version: "v0.0.0-00010101000000-000000000000",
				Replace: &debug.Module{Path: "sigs.k8s.io/cluster-api/api", Version: "v1.14.2"}},
			{Path: "example.com/ours", Version: "v0.0.0-00010101000000-000000000000",
				Replace: &debug.Module{Path: "../.."}},
			{Path: "sigs.k8s.io/controller-runtime", Version: "v0.24.1",
				Replace: &debug.Module{Path: "example.com/fork/controller-runtime", Version: "v0.24.1"}},
		},
	}
	want := map[string]string{
		"sigs.k8s.io/cluster-api":     "v1.14.2",
		"k8s.io/api":                  "v0.36.3",
		"sigs.k8s.io/cluster-api/api": "v1.14.2",
		"example.com/ours":            "=> ../..",
		// A fork at the release's version is no longer the release's.
		"sigs.k8s.io/controller-runtime": "=> example.com/fork/controller-runtime v0.24.1",
	}
	got := Modules(info)
	if len(got) != len(want) {
		t.Fatalf("Modules = %v, want %v", got, want)
	}
	for module, version := range want {
		if got[module] != version {
			t.Errorf("Modules[%s] = %q, want %q", module, got[module], version)
		}
	}
}

func TestCompare(t *testing.T) {
	reference := map[string]string{"k8s.io/api": "v0.36.3", "sigs.k8s.io/controller-runtime": "v0.24.1"}
	ours := Extra{Module: "example.com/ours", Reason: "our code"}
	tests := []struct {
		name    string
		shipped map[string]string
		extras  []Extra
		want    []string
	}{
		{
			name:    "the same versions and an allowed extra pass",
			shipped: map[string]string{"k8s.io/api": "v0.36.3", "example.com/ours": "=> ../.."},
			extras:  []Extra{ours},
		},
		{
			name:    "a subset of the release's modules passes",
			shipped: map[string]string{"sigs.k8s.io/controller-runtime": "v0.24.1"},
		},
		{
			name:    "a shared module at another version is named with both versions",
			shipped: map[string]string{"sigs.k8s.io/controller-runtime": "v0.25.2", "k8s.io/api": "v0.36.3"},
			want:    []string{"sigs.k8s.io/controller-runtime is at v0.25.2 here and at v0.24.1 in Cluster API's release"},
		},
		{
			name:    "an extra module off the list is named",
			shipped: map[string]string{"example.com/new": "v1.0.0"},
			want:    []string{"example.com/new v1.0.0 is linked, but not by Cluster API's core manager, and the allow-list of extra modules does not name it"},
		},
		{
			name:    "an allow-list entry no longer linked is named",
			shipped: map[string]string{"k8s.io/api": "v0.36.3"},
			extras:  []Extra{ours},
			want:    []string{"the allow-list names example.com/ours, which is no longer linked: remove it"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Compare(reference, tt.shipped, tt.extras); !slices.Equal(got, tt.want) {
				t.Errorf("Compare = %q, want %q", got, tt.want)
			}
		})
	}
}
