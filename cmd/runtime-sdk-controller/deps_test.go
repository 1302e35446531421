package main

import (
	"slices"
	"testing"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/depstest"
)

// The controller binary links what it runs and nothing of the tests' or
// tools' wings: folders draw the line (depstest.NotShipped: internal/test/
// holds test helpers, the local control plane and the sample extension
// among them, and test/ tools and harnesses),
// and it links no `testing` at all.
func TestBinary_LinksNothingUnderTestFolders(t *testing.T) {
	linked := depstest.Linked(t, depstest.Module+"internal/controllers/clusterclass")
	for _, pkg := range depstest.Unshipped(linked) {
		t.Errorf("the controller binary links %s", pkg)
	}
	if slices.Contains(linked, "testing") {
		t.Error("the controller binary links testing")
	}
}
