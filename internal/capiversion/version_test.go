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

package capiversion

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/releaseset"
)

// root is the repository's top, from this package's folder.
var root = filepath.Join("..", "..")

func TestVersion_IsTheOneHackClusterAPIVersionNames(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "hack", "cluster-api-version"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(data)); got != Version {
		t.Errorf("hack/cluster-api-version names %s, capiversion.Version is %s: run hack/bump-cluster-api.sh %s", got, Version, got)
	}
}

// clusterAPIModules are the modules of Cluster API's release.
var clusterAPIModules = map[string]bool{
	"sigs.k8s.io/cluster-api":      true,
	"sigs.k8s.io/cluster-api/api":  true,
	"sigs.k8s.io/cluster-api/test": true,
}

// notOurs are go.mod files whose Cluster API requirement is another
// project's choice: the Cluster API Operator pins the release it was built
// with, which is not the one it installs.
var notOurs = map[string]bool{"hack/capi-operator/go.mod": true}

func TestGoModFiles_RequireClusterAPIAtTheVersion(t *testing.T) {
	checked := 0
	for _, goMod := range trackedFiles(t, "go.mod", "*/go.mod") {
		if notOurs[goMod] {
			continue
		}
		for module, version := range clusterAPIRequirements(t, goMod) {
			checked++
			if version != Version {
				t.Errorf("%s requires %s at %s; hack/cluster-api-version says %s", goMod, module, version, Version)
			}
		}
	}
	// The product, the drop-in, the lab, the baseline and the providers.
	if checked < 5 {
		t.Errorf("found %d requirements of Cluster API's modules in the go.mod files; the reading is broken", checked)
	}
}

// clusterAPIRequirements returns the version each of Cluster API's modules
// is built at in goMod: a replacement's version wins over the requirement
// it replaces.
func clusterAPIRequirements(t *testing.T, goMod string) map[string]string {
	t.Helper()
	parsed, err := releaseset.ReadGoMod(root, goMod)
	if err != nil {
		t.Fatal(err)
	}
	versions := map[string]string{}
	for _, r := range parsed.Require {
		if clusterAPIModules[r.Path] {
			versions[r.Path] = r.Version
		}
	}
	for _, r := range parsed.Replace {
		if clusterAPIModules[r.Old.Path] && r.New.Version != "" {
			versions[r.Old.Path] = r.New.Version
		}
	}
	return versions
}

// records are the committed measurements: they name the release they were
// taken on, and a move to another one leaves them as they are.
var records = []string{"docs/compare/", "docs/scale/", "docs/e2e/", "docs/results.md"}

// clusterAPIName is Cluster API's name as code and docs write it, a line
// break allowed between its words.
var clusterAPIName = regexp.MustCompile(`(?i)cluster\s+api|cluster-api|capi`)

// releaseVersion is any release version.
var releaseVersion = regexp.MustCompile(`\bv\d+\.\d+\.\d+\b`)

// otherProjects are names that put another project's version after
// Cluster API's name.
var otherProjects = regexp.MustCompile(`(?i)operator`)

// A stale version is found two ways, outside the records and the go.sum
// files: any version of Version's minor release other than Version, which
// nothing but Cluster API's release uses here; and any version within 60
// characters after Cluster API's name, unless another project's name or
// Cluster API's name again comes first. go.mod files are read only in
// their comments: their requirements are held by the test above.
func TestCodeAndDocs_NameTheVersion(t *testing.T) {
	minor := Version[:strings.LastIndex(Version, ".")+1]
	mentions := 0
	for _, path := range trackedFiles(t) {
		if isRecord(path) || notOurs[path] || strings.HasSuffix(path, "go.sum") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(data, 0) >= 0 {
			continue
		}
		text := string(data)
		if strings.HasSuffix(path, "go.mod") {
			text = commentsOnly(text)
		}
		stale := func(at int, version, why string) {
			line := strings.Count(text[:at], "\n") + 1
			t.Errorf("%s:%d names %s %s; hack/cluster-api-version says %s (hack/bump-cluster-api.sh rewrites it)", path, line, why, version, Version)
		}
		for _, at := range releaseVersion.FindAllStringIndex(text, -1) {
			if version := text[at[0]:at[1]]; strings.HasPrefix(version, minor) && version != Version {
				stale(at[0], version, "Cluster API's minor release at")
			}
		}
		for _, name := range clusterAPIName.FindAllStringIndex(text, -1) {
			after := text[name[1]:min(len(text), name[1]+60)]
			at := releaseVersion.FindStringIndex(after)
			if at == nil || otherProjects.MatchString(after[:at[0]]) || clusterAPIName.MatchString(after[:at[0]]) {
				continue
			}
			mentions++
			if version := after[at[0]:at[1]]; version != Version && !strings.HasPrefix(version, "v0.0.0") {
				stale(name[1]+at[0], version, "Cluster API")
			}
		}
	}
	if mentions < 20 {
		t.Errorf("found %d mentions of Cluster API's version in code and docs; the pattern is broken", mentions)
	}
}

// commentsOnly keeps the comment lines of a go.mod, blanking the others so
// that line numbers stay.
func commentsOnly(goMod string) string {
	lines := strings.Split(goMod, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(strings.TrimSpace(line), "//") {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

func isRecord(path string) bool {
	for _, r := range records {
		if path == r || strings.HasPrefix(path, r) {
			return true
		}
	}
	return false
}

func trackedFiles(t *testing.T, patterns ...string) []string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"ls-files", "--"}, patterns...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	return strings.Fields(string(out))
}
