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

package nodehost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A name becomes a namespace, a cgroup folder in every hierarchy and files
// in the state folder: an empty one or a path would make those roots.
func TestCheckName_RefusesWhatWouldNameARootOrAPath(t *testing.T) {
	for name, ok := range map[string]bool{
		"rsc-node": true, "n1": true, "a": true,
		"": false, ".": false, "..": false, "a/b": false, "/": false, "-a": false, "a-": false, "Node": false,
		strings.Repeat("a", 33): false,
	} {
		if err := checkName(name); (err == nil) != ok {
			t.Errorf("checkName(%q) = %v, want accepted %v", name, err, ok)
		}
	}
}

// Every start empties the node's folder, but only one a node made (or an
// empty one): a folder named by mistake keeps its files.
func TestFreshDir_EmptiesOnlyAFolderANodeMade(t *testing.T) {
	foreign := t.TempDir()
	kept := filepath.Join(foreign, "notes.txt")
	if err := os.WriteFile(kept, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := freshDir(foreign); err == nil || !strings.Contains(err.Error(), "holds files no node made") {
		t.Errorf("freshDir of a folder with someone's files: %v, want it refused", err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("the refused folder lost its file: %v", err)
	}

	dir := filepath.Join(t.TempDir(), "node")
	if err := freshDir(dir); err != nil {
		t.Fatalf("freshDir of a new folder: %v", err)
	}
	left := filepath.Join(dir, "etcd", "member")
	if err := os.MkdirAll(left, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := freshDir(dir); err != nil {
		t.Fatalf("freshDir of the node's own folder: %v", err)
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("the node's folder kept %s: %v", left, err)
	}
}

// mountinfo escapes spaces and other bytes in octal; a mount under a
// folder with a space must still be found under it.
func TestMountsUnder_ReadsEscapedPathsAndMatchesWholeFolders(t *testing.T) {
	if got := unescapeMountPath(`/a\040b/c`); got != "/a b/c" {
		t.Errorf("unescapeMountPath = %q, want %q", got, "/a b/c")
	}
	if got := unescapeMountPath(`/plain`); got != "/plain" {
		t.Errorf("unescapeMountPath = %q", got)
	}
	if got := mountsUnder("/proc"); len(got) == 0 {
		t.Error("no mount found under /proc, where procfs is mounted")
	}
	if got := mountsUnder("/pro"); len(got) != 0 {
		t.Errorf("mounts under /pro: %v, want none (a prefix of a name is not a folder)", got)
	}
}
