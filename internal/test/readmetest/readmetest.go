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
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Path is the README at the root of the project.
func Path() string { return Doc("README.md") }

// Doc is the document at path, relative to the root of the project, such
// as "docs/development.md".
func Doc(path string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", filepath.FromSlash(path))
}

// Docs are the README and every document under docs/ that is written by
// hand (Markdown).
func Docs() ([]string, error) {
	docs, err := filepath.Glob(Doc("docs/*.md"))
	if err != nil {
		return nil, err
	}
	return append([]string{Path()}, docs...), nil
}

// Table returns the first column of every row of the markdown table whose
// header's first cell is header, below the line that contains after.
func Table(readme, after, header string) ([]string, error) {
	f, err := os.Open(readme)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var (
		cells   []string
		started bool
		inTable bool
	)
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		switch {
		case !started:
			started = strings.Contains(line, after)
		case !inTable:
			inTable = strings.HasPrefix(line, "| "+header+" |")
		case !strings.HasPrefix(line, "|"):
			return cells, nil
		case strings.HasPrefix(line, "| ---"):
		default:
			cells = append(cells, strings.TrimSpace(strings.Split(line, "|")[1]))
		}
	}
	return cells, scanner.Err()
}

var (
	flagName  = regexp.MustCompile("`--([a-z0-9-]+)")
	usageFlag = regexp.MustCompile(`^  -([a-z0-9-]+)`)
)

// Flags are the --names written in cells.
func Flags(cells []string) []string {
	var flags []string
	for _, c := range cells {
		for _, m := range flagName.FindAllStringSubmatch(c, -1) {
			flags = append(flags, m[1])
		}
	}
	return flags
}

// UsageFlags are the flags a flag package usage text (-h) lists.
func UsageFlags(usage string) []string {
	var flags []string
	for _, line := range strings.Split(usage, "\n") {
		if m := usageFlag.FindStringSubmatch(line); m != nil {
			flags = append(flags, m[1])
		}
	}
	return flags
}

// MakeTargets are the targets the Makefile documents with "## ".
func MakeTargets(makefile string) ([]string, error) {
	data, err := os.ReadFile(makefile)
	if err != nil {
		return nil, err
	}
	var targets []string
	for _, m := range documentedTarget.FindAllStringSubmatch(string(data), -1) {
		targets = append(targets, m[1])
	}
	return targets, nil
}

var documentedTarget = regexp.MustCompile(`(?m)^([a-zA-Z0-9_-]+):.*## `)

// Differences are the flags only the README documents and those only -h
// lists; ignore drops flags the README covers with one row for many.
func Differences(documented, listed []string, ignore func(string) bool) (onlyDocumented, onlyListed []string) {
	for _, f := range documented {
		if !slices.Contains(listed, f) {
			onlyDocumented = append(onlyDocumented, f)
		}
	}
	for _, f := range listed {
		if !slices.Contains(documented, f) && (ignore == nil || !ignore(f)) {
			onlyListed = append(onlyListed, f)
		}
	}
	return onlyDocumented, onlyListed
}

// CheckFlagTable fails t unless the table of doc whose first header cell
// is header, below the line containing after, names exactly the flags the
// usage text (-h) lists, but those ignore drops.
func CheckFlagTable(t testing.TB, doc, after, header, usage string, ignore func(string) bool) {
	t.Helper()
	cells, err := Table(doc, after, header)
	if err != nil {
		t.Fatal(err)
	}
	documented, listed := Flags(cells), UsageFlags(usage)
	if len(documented) == 0 || len(listed) == 0 {
		t.Fatalf("%s table %q: %d flags, -h %d", filepath.Base(doc), header, len(documented), len(listed))
	}
	onlyDocumented, onlyListed := Differences(documented, listed, ignore)
	if len(onlyDocumented) > 0 || len(onlyListed) > 0 {
		t.Errorf("%s's %q table has %v, which -h does not list; -h lists %v, which the table lacks", filepath.Base(doc), header, onlyDocumented, onlyListed)
	}
}
