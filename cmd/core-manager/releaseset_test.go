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
	"path/filepath"
	"testing"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/releaseset"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
)

// What the drop-in links beyond Cluster API's core manager, and why. The
// list is this short on purpose: every other module the drop-in links,
// Cluster API's own manager links too, at the same version.
var extraModules = []releaseset.Extra{
	{Module: "github.com/runtime-sdk-controller/runtime-sdk-controller/cmd/core-manager", Reason: "the drop-in's own main package: core/main.go's wiring with our three parts in place"},
	{Module: "github.com/runtime-sdk-controller/runtime-sdk-controller", Reason: "our three parts: the ExtensionConfig and ClusterClass controllers, the index, and the runtime client with its registry and response cache"},
}

// The drop-in is Cluster API's release with three parts replaced, so every
// module that Cluster API v1.14.2's own core manager links is linked here
// at the version that release links: go version -m of both binaries, held
// module by module. A bug a user hits then reproduces on Cluster API.
func TestBinary_LinksTheModulesOfClusterAPIsReleaseAtItsVersions(t *testing.T) {
	binDir := toolbin.Require(t, releaseset.Built("core-manager", "capi-baseline"))
	reference := releaseset.BinaryModules(t, filepath.Join(binDir, "capi-baseline"))
	dropIn := releaseset.BinaryModules(t, filepath.Join(binDir, "core-manager"))
	for _, difference := range releaseset.Compare(reference, dropIn, extraModules) {
		t.Errorf("bin/core-manager: %s", difference)
	}
}

// The reference above is Cluster API's core manager built on the go.mod of
// its release: every module bin/capi-baseline links is at the version
// Cluster API's own go.mod requires (hack/capi-baseline adds no
// requirement that could raise one).
func TestReference_IsBuiltOnTheGoModOfClusterAPIsRelease(t *testing.T) {
	binDir := toolbin.Require(t, releaseset.Built("capi-baseline"))
	reference := releaseset.BinaryModules(t, filepath.Join(binDir, "capi-baseline"))
	release, err := releaseset.Required(filepath.Join("..", "..", "hack", "capi-baseline"), "sigs.k8s.io/cluster-api")
	if err != nil {
		t.Fatal(err)
	}
	for _, difference := range releaseset.Compare(release, reference, nil) {
		t.Errorf("bin/capi-baseline: %s", difference)
	}
}
