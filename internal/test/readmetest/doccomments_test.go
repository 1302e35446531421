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
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// benchFigure is a figure as go test -bench prints it: "812 ns/op",
	// "1.2 ms/op", "4096 B/op", "3 allocs/op".
	benchFigure = regexp.MustCompile(`\d[\d.,]*\s*(ns|µs|us|ms|s|B|allocs)/op\b`)
	// testFuncDecl declares a test, benchmark or fuzz target in a _test.go
	// file.
	testFuncDecl = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz)[A-Z_]\w*)\(`)
	// word is an identifier in a comment's text.
	word = regexp.MustCompile(`\b[A-Za-z_]\w*\b`)
)

// A doc comment that quotes a benchmark's figures or names a test goes
// stale the day the figure moves or the test is renamed, and nothing tells:
// it points to the file or document that holds them instead.
func TestDocComments_NameNoTestAndQuoteNoBenchmarkFigure(t *testing.T) {
	root := Doc(".")
	sources, tests := goFiles(t, root)
	if len(sources) == 0 || len(tests) == 0 {
		t.Fatalf("found %d Go sources and %d test names under %s", len(sources), len(tests), root)
	}
	fset := token.NewFileSet()
	for _, path := range sources {
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		for _, group := range docComments(f) {
			for _, c := range group.List {
				line := fset.Position(c.Pos()).Line
				if figure := benchFigure.FindString(c.Text); figure != "" {
					t.Errorf("%s:%d: the doc comment quotes a benchmark figure, %q: point to the benchmark or the document that holds it", rel, line, figure)
				}
				for _, name := range word.FindAllString(c.Text, -1) {
					if tests[name] {
						t.Errorf("%s:%d: the doc comment names the test %s: point to its file or the document that holds what it shows", rel, line, name)
					}
				}
			}
		}
	}
}

func TestDocComments_CatchAFigureAndATestName(t *testing.T) {
	src := `package p

// F is fast: 812 ns/op and 3 allocs/op in BenchmarkF.
func F() {}

// G is tested by TestG_Works.
var G int

// TestExtensionPort is a port, not a test.
const TestExtensionPort = 1
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	tests := testNames(map[string]bool{}, "func BenchmarkF(b *testing.B) {}\nfunc TestG_Works(t *testing.T) {}\n")
	var figures, names []string
	for _, group := range docComments(f) {
		figures = append(figures, benchFigure.FindAllString(group.Text(), -1)...)
		for _, name := range word.FindAllString(group.Text(), -1) {
			if tests[name] {
				names = append(names, name)
			}
		}
	}
	if got, want := strings.Join(figures, ","), "812 ns/op,3 allocs/op"; got != want {
		t.Errorf("figures %q, want %q", got, want)
	}
	if got, want := strings.Join(names, ","), "BenchmarkF,TestG_Works"; got != want {
		t.Errorf("test names %q, want %q", got, want)
	}
}

// goFiles walks every module under root and returns its Go files that are
// not tests and the names of the tests, benchmarks and fuzz targets its
// _test.go files declare. TestMain is the test binary's entry point, which
// a doc comment may name.
func goFiles(t *testing.T, root string) (sources []string, tests map[string]bool) {
	t.Helper()
	tests = map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" ||
				(filepath.Dir(path) == root && (name == "bin" || name == "out"))) {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(path, "_test.go"):
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			testNames(tests, string(data))
		case strings.HasSuffix(path, ".go"):
			sources = append(sources, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	delete(tests, "TestMain")
	return sources, tests
}

// testNames adds the tests that src declares to names.
func testNames(names map[string]bool, src string) map[string]bool {
	for _, m := range testFuncDecl.FindAllStringSubmatch(src, -1) {
		names[m[1]] = true
	}
	return names
}

// docComments are f's doc comments: the package's, and those of its
// declarations, specs and fields.
func docComments(f *ast.File) []*ast.CommentGroup {
	var groups []*ast.CommentGroup
	ast.Inspect(f, func(n ast.Node) bool {
		var doc *ast.CommentGroup
		switch n := n.(type) {
		case *ast.File:
			doc = n.Doc
		case *ast.GenDecl:
			doc = n.Doc
		case *ast.FuncDecl:
			doc = n.Doc
		case *ast.TypeSpec:
			doc = n.Doc
		case *ast.ValueSpec:
			doc = n.Doc
		case *ast.Field:
			doc = n.Doc
		}
		if doc != nil {
			groups = append(groups, doc)
		}
		return true
	})
	return groups
}
