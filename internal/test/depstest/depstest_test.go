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

package depstest

import (
	"slices"
	"testing"
)

func TestUnshipped_NamesPackagesUnderTheFoldersAndNoOthers(t *testing.T) {
	tests := []struct {
		pkg       string
		unshipped bool
	}{
		{Module + "internal/test/polltest", true},
		{Module + "test/loadtest", true},
		{Module + "internal/test/localcluster", true},
		{Module + "internal/test/sampleextension", true},
		// A folder's name is matched whole, not as a prefix of another's.
		{Module + "internal/testing", false},
		{Module + "testdata/fixture", false},
		{Module + "internal/controllers/clusterclass", false},
		{Module + "cmd/core-manager/dropin", false},
		// Another module's test folders are its own business.
		{"sigs.k8s.io/controller-runtime/pkg/envtest", false},
		{"example.com/other/test/fixture", false},
		{"testing", false},
	}
	for _, tt := range tests {
		got := slices.Contains(Unshipped([]string{tt.pkg}), tt.pkg)
		if got != tt.unshipped {
			t.Errorf("Unshipped(%s): %v, want %v", tt.pkg, got, tt.unshipped)
		}
	}
}
