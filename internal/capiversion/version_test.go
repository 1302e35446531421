package capiversion

import (
	"bufio"
	"bytes"
	"fmt"
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

// mention is a release version shortly after Cluster API's name: "Cluster
// API v1.14.2's", "sigs.k8s.io/cluster-api v1.14.2",
// "cluster-api-controller:v1.14.2".
var mention = regexp.MustCompile(`(?i)(cluster[ -]api|capi)([^\n]{0,60}?)\b(v\d+\.\d+\.\d+)\b`)

// otherProjects are names that put another project's version after
// Cluster API's name.
var otherProjects = regexp.MustCompile(`(?i)operator`)

func TestCodeAndDocs_NameTheVersion(t *testing.T) {
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
		for n, line := range lines(data) {
			for _, m := range mention.FindAllStringSubmatch(line, -1) {
				if otherProjects.MatchString(m[2]) || strings.HasPrefix(m[3], "v0.0.0") {
					continue
				}
				mentions++
				if m[3] != Version {
					t.Errorf("%s:%d names Cluster API %s; hack/cluster-api-version says %s (hack/bump-cluster-api.sh rewrites it): %s", path, n+1, m[3], Version, strings.TrimSpace(line))
				}
			}
		}
	}
	if mentions < 20 {
		t.Errorf("found %d mentions of Cluster API's version in code and docs; the pattern is broken", mentions)
	}
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

func lines(data []byte) []string {
	var all []string
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for scanner.Scan() {
		all = append(all, scanner.Text())
	}
	if err := scanner.Err(); err != nil {
		panic(fmt.Sprintf("read lines: %v", err))
	}
	return all
}
