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
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestREADME_MakeTargetsTableIsTheMakefiles(t *testing.T) {
	cells, err := Table(Doc("docs/development.md"), "## Make targets", "target")
	if err != nil {
		t.Fatal(err)
	}
	target := regexp.MustCompile("^`make ([a-z0-9-]+)`$")
	var documented []string
	for _, c := range cells {
		m := target.FindStringSubmatch(c)
		if m == nil {
			t.Errorf("row %q does not name one make target", c)
			continue
		}
		documented = append(documented, m[1])
	}
	defined, err := MakeTargets(filepath.Join(filepath.Dir(Path()), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range documented {
		if !slices.Contains(defined, d) {
			t.Errorf("the README documents make %s, which the Makefile does not define", d)
		}
	}
	for _, d := range defined {
		if !slices.Contains(documented, d) {
			t.Errorf("the Makefile defines make %s, which the README's table lacks", d)
		}
	}
}

// otherTools' flags: kubectl's and clusterctl's in the commands the
// README shows, and Cluster API's manager's (which the drop-in core manager
// takes through component-base and Cluster API's helpers) where it says
// how that ran.
var otherTools = []string{
	"type", "patch-file", "overwrite", "feature-gates", "sync-period", "vmodule",
	"config", "core", "bootstrap", "control-plane", "infrastructure", "runtime-extension",
}

func TestREADME_EveryFlagItNamesIsDefined(t *testing.T) {
	docs, err := Docs()
	if err != nil {
		t.Fatal(err)
	}
	var readme []byte
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		readme = append(readme, data...)
	}
	root := filepath.Dir(Path())
	var sources strings.Builder
	for _, dir := range []string{"cmd", "internal", "test/cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			data, err := os.ReadFile(path)
			sources.Write(data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	flag := regexp.MustCompile("--([a-z][a-z0-9-]+)")
	checked := map[string]bool{}
	for _, m := range flag.FindAllStringSubmatch(string(readme), -1) {
		name := m[1]
		if checked[name] || slices.Contains(otherTools, name) || strings.HasPrefix(name, "zap-") {
			continue
		}
		checked[name] = true
		// A definition: fs.StringVar(&x, "name", ...) or fs.Bool("name", ...).
		definition := regexp.MustCompile(`\.[A-Z][A-Za-z0-9]*(Var)?\((&[^,()]+, )?"` + regexp.QuoteMeta(name) + `"`)
		if !definition.MatchString(sources.String()) {
			t.Errorf("the README or docs/ name --%s, which no command defines", name)
		}
	}
	if len(checked) < 20 {
		t.Fatalf("found only %d flags in the README and docs/", len(checked))
	}
}

// maxREADMELines keeps the README a front page: the install paths, the
// flags and the figures have documents of their own under docs/.
const maxREADMELines = 250

func TestREADME_IsShorterThan250Lines(t *testing.T) {
	data, err := os.ReadFile(Path())
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(data), "\n"); lines >= maxREADMELines {
		t.Errorf("the README has %d lines, %d or more: move detail to a document under docs/ and link it", lines, maxREADMELines)
	}
}

// The README sets up with two commands, and only these: the rest is in
// the documents it links.
func TestREADME_GivesMakeRunAndMakeTestAsItsCommands(t *testing.T) {
	data, err := os.ReadFile(Path())
	if err != nil {
		t.Fatal(err)
	}
	var commands []string
	for _, block := range regexp.MustCompile("(?s)```(?:sh|bash|console)\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		commands = append(commands, strings.TrimSpace(block[1]))
	}
	if got, want := strings.Join(commands, " | "), "make run | make test"; got != want {
		t.Errorf("the README's command blocks are %q, want %q", got, want)
	}
}
