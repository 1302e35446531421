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

package userfacing

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

// root is the repository's root, which holds every module: the product,
// cmd/core-manager, test/ and hack/'s.
const root = "../.."

// TestEachFact_IsWrittenOnlyHere fails when one of this package's strings
// is written as a literal in any other Go file of the repository, tests
// included: a copy would drift from the one users rely on. A literal
// equal to a fact is a copy; so is one that contains an annotation, as
// prose that names it does.
func TestEachFact_IsWrittenOnlyHere(t *testing.T) {
	facts := stringConstants(t, ".")
	for _, c := range copiesUnder(t, root, func(string) bool { return true }, facts) {
		t.Error(c)
	}
}

// TestHookNames_AreTakenFromClusterAPIsCatalog fails when the shipped
// code names a hook with a literal rather than as Cluster API's catalog
// does (runtimecatalog.HookName of the hook): a response cache keyed by
// "GeneratePatches" and a metric counting "GeneratePatches" must be the
// hook the catalog calls by that name. Tests and the lab, which write
// Runtime Extensions' answers, may spell them.
func TestHookNames_AreTakenFromClusterAPIsCatalog(t *testing.T) {
	catalog := runtimecatalog.New()
	if err := runtimehooksv1.AddToCatalog(catalog); err != nil {
		t.Fatal(err)
	}
	hooks := map[string]string{}
	for gvh := range catalog.AllKnownHooks() {
		hooks[gvh.Hook] = "runtimecatalog.HookName(runtimehooksv1." + gvh.Hook + ")"
	}
	if hooks["GeneratePatches"] == "" || len(hooks) < 10 {
		t.Fatalf("read %d hooks from Cluster API's catalog: %v", len(hooks), hooks)
	}
	shipped := func(path string) bool {
		slash := filepath.ToSlash(path)
		return !strings.HasSuffix(path, "_test.go") && !strings.Contains(slash, "/internal/test/") &&
			(strings.HasPrefix(slash, root+"/cmd/") || strings.HasPrefix(slash, root+"/internal/") || strings.HasPrefix(slash, root+"/pkg/"))
	}
	for _, c := range copiesUnder(t, root, shipped, hooks) {
		t.Error(c)
	}
}

// copiesUnder returns the copies of facts in the Go files under dir that
// check selects, leaving out this package, hidden folders, testdata and
// the root's bin/ and out/.
func copiesUnder(t *testing.T, dir string, check func(path string) bool, facts map[string]string) []string {
	t.Helper()
	self, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	var copies []string
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			abs, err := filepath.Abs(path)
			if err != nil {
				return err
			}
			if abs == self || path != dir && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") ||
				filepath.Dir(path) == root && (d.Name() == "bin" || d.Name() == "out") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || !check(path) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		found, err := copiesIn(path, src, facts)
		copies = append(copies, found...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return copies
}

// TestCopiesIn_FindsEqualLiteralsAndAnnotationsInProse holds the scan
// itself to what it must find and what it must let through.
func TestCopiesIn_FindsEqualLiteralsAndAnnotationsInProse(t *testing.T) {
	const reason = "SomethingDone"
	facts := map[string]string{
		ResponseCacheMaxAgeAnnotation: "ResponseCacheMaxAgeAnnotation",
		reason:                        "SomethingDoneReason",
	}
	src := `package p

const a = "` + ResponseCacheMaxAgeAnnotation + `"
var b = []string{"x", "` + reason + `"}
const c = "annotate it with ` + ResponseCacheMaxAgeAnnotation + `=10m"
const d = ` + "`" + ResponseCacheMaxAgeAnnotation + "`" + `

// A comment may say ` + ResponseCacheMaxAgeAnnotation + ` and ` + reason + `.
const e = "` + reason + ` = %v, want True"
const f = "scale.example.dev/touched"
`
	got, err := copiesIn("p.go", []byte(src), facts)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range got {
		lines = append(lines, strings.SplitN(c, ":", 3)[1])
	}
	if want := "3 4 5 6"; strings.Join(lines, " ") != want {
		t.Errorf("copies on lines %v, want %s:\n%s", lines, want, strings.Join(got, "\n"))
	}
}

// TestStringConstants_ReadsThisPackagesFacts guards against a scan that
// checks nothing because it read no facts.
func TestStringConstants_ReadsThisPackagesFacts(t *testing.T) {
	facts := stringConstants(t, ".")
	for value, name := range map[string]string{
		ResponseCacheMaxAgeAnnotation: "userfacing.ResponseCacheMaxAgeAnnotation",
		RediscoverAnnotation:          "userfacing.RediscoverAnnotation",
		CAInjectionFailedReason:       "userfacing.CAInjectionFailedReason",
		ExtensionsResolvedReason:      "userfacing.ExtensionsResolvedCondition or userfacing.ExtensionsResolvedReason",
	} {
		if facts[value] != name {
			t.Errorf("facts[%q] = %q, want %q", value, facts[value], name)
		}
	}
}

// stringConstants returns, by value, the names of the constants of the
// package in dir that are string literals, as "userfacing.Name".
func stringConstants(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string]string{}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					value, ok := stringLiteral(v)
					switch {
					case !ok:
					case facts[value] == "":
						facts[value] = "userfacing." + vs.Names[i].Name
					default:
						// Two names of one value, such as a condition
						// and its reason: either one does.
						facts[value] += " or userfacing." + vs.Names[i].Name
					}
				}
			}
		}
	}
	return facts
}

// copiesIn returns "path:line: ..." for every string literal in the Go
// source src that copies one of facts (name by value).
func copiesIn(path string, src []byte, facts map[string]string) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var copies []string
	ast.Inspect(f, func(n ast.Node) bool {
		value, ok := stringLiteral(n)
		if !ok {
			return true
		}
		var names []string
		for fact, name := range facts {
			if value == fact || isAnnotation(fact) && strings.Contains(value, fact) {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			copies = append(copies, fset.Position(n.Pos()).String()+": "+strconv.Quote(value)+" copies "+name+"; use the name that defines it")
		}
		return true
	})
	return copies, nil
}

// isAnnotation tells an annotation's key, the one kind of fact that prose
// names inside longer strings.
func isAnnotation(fact string) bool { return strings.Contains(fact, "/") }

func stringLiteral(n ast.Node) (string, bool) {
	lit, ok := n.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	value, err := strconv.Unquote(lit.Value)
	return value, err == nil
}
