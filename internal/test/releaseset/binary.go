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
