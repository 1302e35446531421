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

package e2e

import (
	"testing"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

func TestHookKey_IsTheTestExtensionsConfigMapKey(t *testing.T) {
	for _, tc := range []struct {
		hook       string
		attributes []string
		want       string
	}{
		{"BeforeClusterCreate", nil, "BeforeClusterCreate"},
		{"BeforeClusterUpgrade", []string{"v1.36.4", "v1.37.0"}, "BeforeClusterUpgrade-v1.36.4-v1.37.0"},
		{"AfterControlPlaneUpgrade", []string{"v1.37.0+build.1"}, "AfterControlPlaneUpgrade-v1.37.0_build.1"},
	} {
		if got := capimanagement.HookKey(tc.hook, tc.attributes...); got != tc.want {
			t.Errorf("HookKey(%s, %v) = %q, want %q", tc.hook, tc.attributes, got, tc.want)
		}
	}
}

func TestWithinTolerance_AllowsHalfOrTwoCallsWhicheverIsMore(t *testing.T) {
	for _, tc := range []struct {
		ours, baseline float64
		want           bool
	}{
		{120, 122, true},
		{61, 122, true},
		{60, 130, false},
		{4, 2, true},
		{5, 2, false},
		{0, 0, true},
		{3, 0, false},
	} {
		if got := withinTolerance(tc.ours, tc.baseline); got != tc.want {
			t.Errorf("withinTolerance(%v, %v) = %v, want %v", tc.ours, tc.baseline, got, tc.want)
		}
	}
}
