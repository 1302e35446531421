package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The drop-in links nothing of this repository's tests' or tools' wings
// (internal/test/, test/). Unlike the controller it links `testing`, as
// Cluster API's own manager does, through Cluster API's util/conversion and
// client-go's fakes.
func TestBinary_LinksNothingUnderTestFolders(t *testing.T) {
	const module = "github.com/runtime-sdk-controller/runtime-sdk-controller/"
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	linked := strings.Fields(string(out))
	found := false
	for _, pkg := range linked {
		if pkg == module+"internal/controllers/clusterclass" {
			found = true
		}
		if strings.HasPrefix(pkg, module+"internal/test/") || strings.HasPrefix(pkg, module+"test/") {
			t.Errorf("the drop-in core manager links %s", pkg)
		}
	}
	if !found {
		t.Fatalf("go list -deps does not list our ClusterClass controller; is this the drop-in's package?\n%s", out)
	}
}
