package main

import (
	"testing"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/depstest"
)

// The drop-in links nothing of this repository's tests' or tools' wings
// (depstest.NotShipped: internal/test/, where the local control plane and the
// sample extension are, and test/). Unlike the controller it
// links `testing`, as Cluster API's own manager does, through Cluster API's
// util/conversion and client-go's fakes.
func TestBinary_LinksNothingUnderTestFolders(t *testing.T) {
	linked := depstest.Linked(t, depstest.Module+"internal/controllers/clusterclass")
	for _, pkg := range depstest.Unshipped(linked) {
		t.Errorf("the drop-in core manager links %s", pkg)
	}
}
