package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The controller binary links the controller and its operator commands:
// no test helper, load tool, drill or sample extension. The local control
// plane is the one exception, for --local.
func TestBinary_LinksNoTestOrToolCode(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const module = "github.com/runtime-sdk-controller/runtime-sdk-controller/"
	forbidden := []string{
		"testing",
		"github.com/prometheus/client_golang/prometheus/testutil",
		module + "internal/sampleextension",
		module + "internal/loadtest",
		module + "internal/drill",
		module + "internal/managerprocess",
		module + "internal/testenv",
		module + "internal/testsync",
		module + "internal/capibaseline",
		module + "internal/differential",
		module + "internal/devrun",
		module + "internal/proctest",
		module + "internal/ociimage",
		module + "internal/readmecheck",
		// Everything under test/: harnesses and tools.
		module + "test",
	}
	linked := map[string]bool{}
	for _, pkg := range strings.Fields(string(out)) {
		linked[pkg] = true
	}
	if !linked[module+"internal/controllers/clusterclass"] {
		t.Fatalf("go list -deps does not list the ClusterClass controller; is this the controller's package?\n%s", out)
	}
	for _, pkg := range forbidden {
		if linked[pkg] {
			t.Errorf("the controller binary links %s", pkg)
		}
		for dep := range linked {
			if strings.HasPrefix(dep, pkg+"/") {
				t.Errorf("the controller binary links %s", dep)
			}
		}
	}
}
