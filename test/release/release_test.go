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

package release

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/ociimage"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/ociimage/ociimagetest"
)

// What the test passes the script for the release.
const (
	capiVersion = "v1.14.2"
	version     = "v1.14.2-rsc.test"
	revision    = "0123456789abcdef"
	image       = "registry.example.test/capi/core-manager:v1.14.2-rsc.test"
)

// The binaries make release ships, per platform.
var binaries = []string{"core-manager", "runtime-sdk-controller"}

// stage is what make release hands the script: the tools, the providers'
// rendering and the cross-built binaries.
type stage struct {
	rscImage, cyclonedx, data, binaries string
}

// folder is a platform's folder and file suffix, os-arch[-variant].
func folder(p v1.Platform) string { return strings.ReplaceAll(p.String(), "/", "-") }

func newStage(t *testing.T) stage {
	t.Helper()
	binDir := toolbin.Require(t, func(binDir string) error {
		path := filepath.Join(binDir, "cyclonedx-gomod")
		if out, err := exec.Command(path, "version").CombinedOutput(); err != nil {
			return fmt.Errorf("%s does not run (%v: %s): build it with make %s", path, err, out, path)
		}
		return nil
	})
	if _, err := os.Stat("/etc/ssl/certs/ca-certificates.crt"); err != nil {
		t.Skipf("no CA bundle on this machine: %v", err)
	}
	dir := t.TempDir()
	s := stage{
		rscImage:  filepath.Join(dir, "rsc-image"),
		cyclonedx: filepath.Join(binDir, "cyclonedx-gomod"),
		data:      filepath.Join(dir, "data"),
		binaries:  filepath.Join(dir, "release"),
	}
	build := exec.Command("go", "build", "-o", s.rscImage, "./cmd/rsc-image")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build rsc-image: %v\n%s", err, out)
	}
	for _, name := range binaries {
		programs := ociimagetest.StaticPrograms(t, filepath.Join(dir, "programs"), name, ociimage.Platforms)
		for _, p := range ociimage.Platforms {
			dest := filepath.Join(s.binaries, folder(p), name)
			if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(programs[p.String()], dest); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Cluster API's core components, as make capi-providers renders them,
	// cut to what the script reads and changes.
	writeFile(t, filepath.Join(s.data, "core", "components.yaml"), coreComponents)
	writeFile(t, filepath.Join(s.data, "core", "metadata.yaml"), coreMetadata)
	return s
}

const coreComponents = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: capi-controller-manager
  namespace: capi-system
spec:
  template:
    spec:
      containers:
      - name: manager
        image: registry.k8s.io/cluster-api/cluster-api-controller:v1.14.2
        imagePullPolicy: Always
`

const coreMetadata = `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
- major: 1
  minor: 14
  contract: v1beta2
`

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs the script as make release does, into out.
func (s stage) run(t *testing.T, out string) (string, error) {
	t.Helper()
	var platforms []string
	for _, p := range ociimage.Platforms {
		platforms = append(platforms, p.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "../../hack/release.sh", "all", s.rscImage, s.cyclonedx, s.data, capiVersion,
		strings.Join(platforms, " "), s.binaries, version, revision, image, out)
	printed, err := cmd.CombinedOutput()
	return string(printed), err
}

// The release holds exactly the image index, clusterctl's folder, the
// tools, an SBOM of each binary and checksums.txt, each as its contract
// says.
func TestReleaseScript_WritesTheImageIndexClusterctlFolderSBOMsAndChecksums(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	out := filepath.Join(t.TempDir(), "out")
	if printed, err := s.run(t, out); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, printed)
	}

	want := []string{"checksums.txt", "cluster-api/" + capiVersion + "/core-components.yaml", "cluster-api/" + capiVersion + "/metadata.yaml", "core-manager-image.tar"}
	for _, p := range ociimage.Platforms {
		want = append(want, "core-manager-"+folder(p)+".cdx.json", "runtime-sdk-controller-"+folder(p), "runtime-sdk-controller-"+folder(p)+".cdx.json")
	}
	slices.Sort(want)
	if got := files(t, out); !slices.Equal(got, want) {
		t.Errorf("the release holds\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}

	t.Run("checksums", func(t *testing.T) { checkChecksums(t, out) })
	t.Run("image", func(t *testing.T) { checkImage(t, out) })
	t.Run("clusterctl", func(t *testing.T) { checkClusterctl(t, out) })
	t.Run("sboms", func(t *testing.T) {
		for _, p := range ociimage.Platforms {
			checkSBOM(t, out, "core-manager-"+folder(p)+".cdx.json", filepath.Join(s.binaries, folder(p), "core-manager"), p)
			shipped := filepath.Join(out, "runtime-sdk-controller-"+folder(p))
			if sha256File(t, shipped) != sha256File(t, filepath.Join(s.binaries, folder(p), "runtime-sdk-controller")) {
				t.Errorf("%s is not the binary built for %s", shipped, p)
			}
			checkSBOM(t, out, "runtime-sdk-controller-"+folder(p)+".cdx.json", shipped, p)
		}
	})
}

// files lists every file under dir, relative, sorted.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		names = append(names, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// checksums.txt is sha256sum's output for every other file: a hash, two
// spaces and the path, each file once.
func checkChecksums(t *testing.T, out string) {
	f, err := os.Open(filepath.Join(out, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line := regexp.MustCompile(`^([0-9a-f]{64})  (\S+)$`)
	var listed []string
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		m := line.FindStringSubmatch(scanner.Text())
		if m == nil {
			t.Errorf("checksums.txt: %q is not as sha256sum prints", scanner.Text())
			continue
		}
		if got := sha256File(t, filepath.Join(out, m[2])); got != m[1] {
			t.Errorf("checksums.txt: %s is %s, the file's sha256 is %s", m[2], m[1], got)
		}
		listed = append(listed, m[2])
	}
	if err := scanner.Err(); err != nil {
		t.Fatal(err)
	}
	want := slices.DeleteFunc(files(t, out), func(name string) bool { return name == "checksums.txt" })
	slices.Sort(listed)
	if !slices.Equal(listed, want) {
		t.Errorf("checksums.txt lists %v, want every other file: %v", listed, want)
	}
}

// The image is one index of every platform, named as the release's image
// and labelled with its version and revision.
func checkImage(t *testing.T, out string) {
	idx, err := ociimage.ReadIndexArchive(filepath.Join(out, "core-manager-image.tar"))
	if err != nil {
		t.Fatal(err)
	}
	if idx.Name != image {
		t.Errorf("the index is named %q, want %q", idx.Name, image)
	}
	if len(idx.Images) != len(ociimage.Platforms) {
		t.Errorf("the index holds %d images, want %d", len(idx.Images), len(ociimage.Platforms))
	}
	labels := map[string]string{"org.opencontainers.image.version": version, "org.opencontainers.image.revision": revision, "org.opencontainers.image.title": "core-manager"}
	for key, want := range labels {
		if idx.Annotations[key] != want {
			t.Errorf("the index's %s is %q, want %q", key, idx.Annotations[key], want)
		}
	}
	for _, p := range ociimage.Platforms {
		img, ok := idx.Image(p.String())
		if !ok {
			t.Errorf("no %s image", p)
			continue
		}
		for key, want := range labels {
			if img.Labels[key] != want {
				t.Errorf("%s: %s is %q, want %q", p, key, img.Labels[key], want)
			}
		}
	}
}

// clusterctl's folder holds Cluster API's core components running the
// release's image, pulled only when missing, and its metadata unchanged.
func checkClusterctl(t *testing.T, out string) {
	dir := filepath.Join(out, "cluster-api", capiVersion)
	components, err := os.ReadFile(filepath.Join(dir, "core-components.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	wantComponents := strings.NewReplacer(
		"registry.k8s.io/cluster-api/cluster-api-controller:v1.14.2", image,
		"imagePullPolicy: Always", "imagePullPolicy: IfNotPresent",
	).Replace(coreComponents)
	if string(components) != wantComponents {
		t.Errorf("core-components.yaml:\n%s\nwant:\n%s", components, wantComponents)
	}
	if metadata, err := os.ReadFile(filepath.Join(dir, "metadata.yaml")); err != nil || string(metadata) != coreMetadata {
		t.Errorf("metadata.yaml is not Cluster API's (%v):\n%s", err, metadata)
	}
}

// sbom is what the test reads of a CycloneDX SBOM.
type sbom struct {
	BOMFormat   string `json:"bomFormat"`
	SpecVersion string `json:"specVersion"`
	Metadata    struct {
		Component struct {
			Name    string `json:"name"`
			Version string `json:"version"`
			PURL    string `json:"purl"`
		} `json:"component"`
		Properties []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"properties"`
	} `json:"metadata"`
}

// Each SBOM is CycloneDX JSON of the binary it names by its hash: its main
// module at the release's version, for its platform.
func checkSBOM(t *testing.T, out, name, binary string, p v1.Platform) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, name))
	if err != nil {
		t.Fatal(err)
	}
	var got sbom
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%s is not JSON: %v", name, err)
	}
	if got.BOMFormat != "CycloneDX" || got.SpecVersion == "" {
		t.Errorf("%s: bomFormat %q, specVersion %q; want CycloneDX", name, got.BOMFormat, got.SpecVersion)
	}
	c := got.Metadata.Component
	if c.Name != ociimagetest.Module || c.Version != version || !strings.Contains(c.PURL, "goarch="+p.Architecture+"&") {
		t.Errorf("%s describes %s %s (%s), want %s %s for %s", name, c.Name, c.Version, c.PURL, ociimagetest.Module, version, p.Architecture)
	}
	hash := ""
	for _, prop := range got.Metadata.Properties {
		if prop.Name == "cdx:gomod:binary:hash:SHA-256" {
			hash = prop.Value
		}
	}
	if want := sha256File(t, binary); hash != want {
		t.Errorf("%s names a binary of sha256 %q, want %s's, %s", name, hash, binary, want)
	}
}

// A binary missing for one platform fails the release, naming it, and
// leaves no release behind, partial or whole.
func TestReleaseScript_AMissingBinaryFailsAndLeavesNoRelease(t *testing.T) {
	t.Parallel()
	s := newStage(t)
	missing := filepath.Join(s.binaries, "linux-s390x", "runtime-sdk-controller")
	if err := os.Remove(missing); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	printed, err := s.run(t, out)
	if err == nil {
		t.Fatal("the release was written without a binary")
	}
	if !strings.Contains(printed, missing) {
		t.Errorf("the script failed with %q, want it to name %s", printed, missing)
	}
	for _, left := range []string{out, out + ".tmp"} {
		if _, err := os.Stat(left); !os.IsNotExist(err) {
			t.Errorf("%s was left behind (%v)", left, err)
		}
	}
}

// The Makefile cross-builds for exactly the platforms the image writer
// accepts, in its order.
func TestMakefile_ReleasePlatformsAreTheImageWritersPlatforms(t *testing.T) {
	makefile, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^RELEASE_PLATFORMS := (.*)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("the Makefile sets no RELEASE_PLATFORMS")
	}
	var want []string
	for _, p := range ociimage.Platforms {
		want = append(want, p.String())
	}
	if got := strings.Fields(string(m[1])); !slices.Equal(got, want) {
		t.Errorf("RELEASE_PLATFORMS is %v, the image writer's platforms %v", got, want)
	}
}
