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
