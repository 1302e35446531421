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
