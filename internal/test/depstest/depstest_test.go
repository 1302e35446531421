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
