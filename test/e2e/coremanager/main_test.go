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

package coremanager

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/capiversion"
)

// name is the command under test.
const name = "core-manager"

// coreManager is the command, built once for the package's tests.
var coreManager string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "core-manager-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	coreManager = filepath.Join(dir, name)
	build := exec.Command("go", "build", "-o", coreManager, ".")
	// The drop-in is a module of its own, built in its directory.
	build.Dir = "../../../cmd/core-manager"
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build %s: %v\n%s", name, err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runBinary runs the built command with args and returns its output and
// exit code.
func runBinary(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, err := exec.Command(coreManager, args...).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	default:
		t.Fatalf("run %s: %v", name, err)
		return "", 0
	}
}

func TestStart_AFlagClusterAPIsManagerDoesNotTakeStopsItByName(t *testing.T) {
	out, code := runBinary(t, "--leader-elect", "--metrics-bind-address=:8080")
	if code != 2 || !strings.Contains(out, "metrics-bind-address") {
		t.Errorf("exit %d, output %q; want 2 and the flag's name", code, out)
	}
}

// Above level 6 client-go would log request headers and bodies, caBundles
// among them: -v and --vmodule are lowered, and the log says so. As
// Cluster API's manager, it logs its version and every flag before it
// connects.
func TestStart_CapsVerbosityAndLogsItsVersionAndFlags(t *testing.T) {
	out, code := runBinary(t, "--kubeconfig=/nonexistent/kubeconfig", "-v=9", "--vmodule=round_trippers=8,topology=2")
	if code != 1 || !strings.Contains(out, "/nonexistent/kubeconfig") {
		t.Fatalf("exit %d, output:\n%s\nwant 1 and an error naming the kubeconfig", code, out)
	}
	for _, want := range []string{
		"-v=9 lowered to 6",
		"--vmodule levels of [round_trippers] lowered to 6",
		`FLAG: --vmodule="round_trippers=6,topology=2"`,
		`FLAG: --leader-elect="false"`,
		"Version: core-manager (git commit:",
		"with sigs.k8s.io/cluster-api " + capiversion.Version,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
