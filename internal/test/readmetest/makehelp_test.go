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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxHelpDescription is the longest line make help gives a target: the
// longer text is docs/development.md's.
const maxHelpDescription = 100

// make help lists every phony target once, under a section, with a
// description short enough to read as one line.
func TestMakefile_HelpListsEveryTargetInOneShortLine(t *testing.T) {
	root := filepath.Dir(Path())
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "--no-print-directory", "-s", "help")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make help: %v\n%s", err, out)
	}
	for _, problem := range helpProblems(string(makefile), string(out)) {
		t.Error(problem)
	}
}

func TestMakefile_HelpProblemsAreNamed(t *testing.T) {
	makefile := ".PHONY: a b c d all\n"
	help := "  a    before any section\n\nBuild\n  b    " + strings.Repeat("x", maxHelpDescription+1) + "\n  c\n"
	want := []string{
		`make help lists a before any section ("##@ Section" line)`,
		"make help describes b in 101 characters, over 100: move the rest to docs/development.md",
		"make help gives c no description (add one after ## on its rule)",
		"make help lacks d (add ## and a description to its rule)",
	}
	if got := helpProblems(makefile, help); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

var (
	phony    = regexp.MustCompile(`(?m)^\.PHONY:(.*)$`)
	helpLine = regexp.MustCompile(`^  (\S+)(?:\s+(.*))?$`)
)

// helpProblems are what make help's output lacks or gets wrong for the
// Makefile's phony targets; "all", the default goal, needs no line.
func helpProblems(makefile, help string) []string {
	var problems []string
	listed := map[string]bool{}
	section := ""
	for _, line := range strings.Split(help, "\n") {
		m := helpLine.FindStringSubmatch(line)
		switch {
		case strings.TrimSpace(line) == "":
		case m == nil:
			section = strings.TrimSpace(line)
		case section == "":
			problems = append(problems, "make help lists "+m[1]+` before any section ("##@ Section" line)`)
		case m[2] == "":
			problems = append(problems, "make help gives "+m[1]+" no description (add one after ## on its rule)")
		case len([]rune(m[2])) > maxHelpDescription:
			problems = append(problems, fmt.Sprintf("make help describes %s in %d characters, over %d: move the rest to docs/development.md", m[1], len([]rune(m[2])), maxHelpDescription))
		}
		if m != nil {
			listed[m[1]] = true
		}
	}
	for _, decl := range phony.FindAllStringSubmatch(makefile, -1) {
		for _, target := range strings.Fields(decl[1]) {
			if target != "all" && !listed[target] {
				problems = append(problems, "make help lacks "+target+" (add ## and a description to its rule)")
			}
		}
	}
	return problems
}
