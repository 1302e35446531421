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

package toolbin

import (
	"os"
	"testing"
)

// ShortSkip is why a test that needs what `make tools` or the other make
// targets build is skipped under go test -short.
const ShortSkip = "needs a kube-apiserver or binaries built into bin/, which go test -short (make test-unit) leaves out; make test runs it"

// SkipShort skips t under go test -short, the unit tier make test-unit
// runs: t needs a control plane or a built binary.
func SkipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip(ShortSkip)
	}
}

// Require returns the tool directory when check finds in it what a test
// needs. When it does not, the test is skipped if run by hand, and fails
// under CI (CI=true), where `make test` must have built everything. Under
// go test -short the test is skipped before anything is checked.
func Require(t testing.TB, check func(binDir string) error) string {
	t.Helper()
	SkipShort(t)
	binDir, err := Dir()
	if err == nil {
		err = check(binDir)
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: %v", err)
		}
		t.Skipf("%v", err)
	}
	return binDir
}
