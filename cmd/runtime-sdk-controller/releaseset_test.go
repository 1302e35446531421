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

// The read-only tools run beside a stock Cluster API v1.14.2 and share the
// drop-in's packages: every module they link, Cluster API's own core
// manager links too, at the version its release links.
func TestBinary_LinksOnlyModulesOfClusterAPIsReleaseAtItsVersions(t *testing.T) {
	binDir := toolbin.Require(t, releaseset.Built("runtime-sdk-controller", "capi-baseline"))
	reference := releaseset.BinaryModules(t, filepath.Join(binDir, "capi-baseline"))
	tools := releaseset.BinaryModules(t, filepath.Join(binDir, "runtime-sdk-controller"))
	extras := []releaseset.Extra{{Module: "github.com/runtime-sdk-controller/runtime-sdk-controller", Reason: "our own code: observe mode and who-uses over the index"}}
	for _, difference := range releaseset.Compare(reference, tools, extras) {
		t.Errorf("bin/runtime-sdk-controller: %s", difference)
	}
}
