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

package depstest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Module is this repository's module path, with its trailing slash.
const Module = "github.com/runtime-sdk-controller/runtime-sdk-controller/"

// NotShipped are the folders of this module no shipped binary links:
// helpers for tests (internal/test: the sample extension and the local
// control plane among them) and tools and harnesses (test).
var NotShipped = []string{"internal/test", "test"}

// Linked returns the packages `go list -deps` lists for the package in the
// current directory. It fails t unless they include want, a package the
// binary must link, so that a wrong directory does not pass as linking
// nothing.
func Linked(t testing.TB, want string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	linked := strings.Fields(string(out))
	if !slices.Contains(linked, want) {
		t.Fatalf("go list -deps does not list %s; is this the binary's package?\n%s", want, out)
	}
	return linked
}

// Unshipped returns the packages of linked that lie under a folder of
// NotShipped.
func Unshipped(linked []string) []string {
	var found []string
	for _, pkg := range linked {
		rel, ok := strings.CutPrefix(pkg, Module)
		if !ok {
			continue
		}
		for _, dir := range NotShipped {
			if rel == dir || strings.HasPrefix(rel, dir+"/") {
				found = append(found, pkg)
				break
			}
		}
	}
	return found
}
