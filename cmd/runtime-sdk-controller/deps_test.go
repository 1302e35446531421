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
