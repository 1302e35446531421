package main

import (
	"os/exec"
	"strings"
	"testing"
)

// module is this repository's module path, with its trailing slash.
const module = "github.com/runtime-sdk-controller/runtime-sdk-controller/"

// The controller binary links what it runs and nothing of the tests' or
// tools' wings: folders draw the line (internal/test/ holds test helpers,
// test/ tools and harnesses), and it links no `testing` at all.
func TestBinary_LinksNothingUnderTestFolders(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	linked := strings.Fields(string(out))
	if !contains(linked, module+"internal/controllers/clusterclass") {
		t.Fatalf("go list -deps does not list the ClusterClass controller; is this the controller's package?\n%s", out)
	}
	for _, pkg := range linked {
		if pkg == "testing" || strings.HasPrefix(pkg, module+"internal/test/") || strings.HasPrefix(pkg, module+"test/") {
			t.Errorf("the controller binary links %s", pkg)
		}
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
