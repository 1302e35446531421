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
