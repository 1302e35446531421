package toolbin

import (
	"os"
	"testing"
)

// Require returns the tool directory when check finds in it what a test
// needs. When it does not, the test is skipped if run by hand, and fails
// under CI (CI=true), where `make test` must have built everything.
func Require(t testing.TB, check func(binDir string) error) string {
	t.Helper()
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
