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

package readmetest

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The Layout of docs/architecture.md names every Go package and every Go
// module of the tree, and nothing that is gone: a reader finds each folder
// there, and a merge that adds, moves or removes a package is told which
// line to add or remove.
func TestArchitecture_LayoutNamesEveryPackageAndNothingGone(t *testing.T) {
	root := filepath.Dir(Path())
	doc, err := os.ReadFile(Doc("docs/architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	named, err := layoutFolders(string(doc))
	if err != nil {
		t.Fatal(err)
	}
	folders, err := goFolders(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(named) < 50 || len(folders) < 50 {
		t.Fatalf("read %d folders from the Layout and %d Go packages and modules from the tree: too few to be the project's", len(named), len(folders))
	}
	for _, folder := range folders {
		if !slices.Contains(named, folder) {
			t.Errorf("docs/architecture.md's Layout does not name %s/, a Go package or module: add a line for it under %s/", folder, path.Dir(folder))
		}
	}
	for _, folder := range named {
		if info, err := os.Stat(filepath.Join(root, filepath.FromSlash(folder))); err != nil || !info.IsDir() {
			t.Errorf("docs/architecture.md's Layout names %s/, which is not in the tree: remove its line, or rename it", folder)
		}
	}
}

func TestArchitecture_LayoutFoldersNest(t *testing.T) {
	doc := "# A\n\n```\nnot the layout/\n```\n\n## Layout\n\n" +
		"```\n" +
		"cmd/                 binaries, and a description that wraps onto\n" +
		"                     a second line/ whose words are not folders\n" +
		"  tool/              a tool\n" +
		"    sub/\n" +
		"internal/test/       two levels at once\n" +
		"  helper/            a helper\n" +
		"```\n\nnot/ in the block\n"
	got, err := layoutFolders(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cmd", "cmd/tool", "cmd/tool/sub", "internal/test", "internal/test/helper"}
	if !slices.Equal(got, want) {
		t.Errorf("folders %q, want %q", got, want)
	}
}

// layoutEntry is a line of the Layout that names a folder: indented by
// two spaces per level under the line above it with less indentation, the
// folder's name (or path) ending in a slash, then at least two spaces and
// its description, or nothing. A description's continuation lines are
// indented further than any folder.
var layoutEntry = regexp.MustCompile(`^( {0,19})([A-Za-z0-9._-]+(?:/[A-Za-z0-9._-]+)*)/(?:\s{2,}|$)`)

// layoutFolders are the folders, as slash paths from the project's root,
// that the first code block under "## Layout" in doc names.
func layoutFolders(doc string) ([]string, error) {
	_, section, ok := strings.Cut(doc, "\n## Layout\n")
	if !ok {
		return nil, errors.New(`no "## Layout" section`)
	}
	_, block, ok := strings.Cut(section, "```\n")
	if !ok {
		return nil, errors.New(`no code block under "## Layout"`)
	}
	block, _, _ = strings.Cut(block, "```")
	type level struct {
		indent int
		path   string
	}
	var (
		folders []string
		parents []level
	)
	for _, line := range strings.Split(block, "\n") {
		m := layoutEntry.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		indent := len(m[1])
		for len(parents) > 0 && parents[len(parents)-1].indent >= indent {
			parents = parents[:len(parents)-1]
		}
		folder := m[2]
		if len(parents) > 0 {
			folder = parents[len(parents)-1].path + "/" + folder
		}
		parents = append(parents, level{indent: indent, path: folder})
		folders = append(folders, folder)
	}
	return folders, nil
}

// goFolders are the folders under root, as slash paths, that hold a Go
// package (a .go file) or a Go module (a go.mod), but root itself and what
// no module builds: hidden folders, testdata, and bin/ and out/ at the
// root.
func goFolders(root string) ([]string, error) {
	var folders []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" ||
				(filepath.Dir(p) == root && (name == "bin" || name == "out"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if dir := filepath.Dir(p); dir != root && (strings.HasSuffix(p, ".go") || d.Name() == "go.mod") {
			rel, err := filepath.Rel(root, dir)
			if err != nil {
				return err
			}
			if rel = filepath.ToSlash(rel); !slices.Contains(folders, rel) {
				folders = append(folders, rel)
			}
		}
		return nil
	})
	return folders, err
}
