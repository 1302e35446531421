package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/depstest"
)

// The read-only tools' binary links what it runs and nothing of the tests'
// or tools' wings: folders draw the line (depstest.NotShipped: internal/test/
// holds test helpers, the local control plane and the sample extension
// among them, and test/ tools and harnesses), and it links no `testing`.
func TestBinary_LinksNothingUnderTestFolders(t *testing.T) {
	linked := depstest.Linked(t, depstest.Module+"internal/observe")
	for _, pkg := range depstest.Unshipped(linked) {
		t.Errorf("the read-only tools' binary links %s", pkg)
	}
	if slices.Contains(linked, "testing") {
		t.Error("the read-only tools' binary links testing")
	}
}

// It writes nothing: none of what reconciles or calls an extension is in
// it, only what reads (the index, the scan model, who-uses).
func TestBinary_LinksNothingThatWrites(t *testing.T) {
	linked := depstest.Linked(t, depstest.Module+"internal/observe")
	for _, writer := range []string{"internal/controllers", "internal/runtime/client", "internal/runtime/registry"} {
		for _, pkg := range linked {
			if pkg == depstest.Module+writer || strings.HasPrefix(pkg, depstest.Module+writer+"/") {
				t.Errorf("the read-only tools' binary links %s", pkg)
			}
		}
	}
}
