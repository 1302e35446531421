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

package releaseset

import (
	"debug/buildinfo"
	"fmt"
	"path/filepath"
	"testing"
)

// Built returns a check for toolbin.Require: each named binary is in the
// tool folder with its build info, all these tests read of it.
func Built(names ...string) func(binDir string) error {
	return func(binDir string) error {
		for _, name := range names {
			if _, err := buildinfo.ReadFile(filepath.Join(binDir, name)); err != nil {
				return fmt.Errorf("no build info in bin/%s (%w): run `make build core-manager capi-baseline`", name, err)
			}
		}
		return nil
	}
}

// BinaryModules returns Modules of the binary at path, as `go version -m`
// prints them.
func BinaryModules(t testing.TB, path string) map[string]string {
	t.Helper()
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		t.Fatalf("read the build info of %s (what go version -m prints): %v", path, err)
	}
	return Modules(info)
}
