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

package ociimage

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/ociimage/ociimagetest"
)

// releaseOptions are the drop-in's image as make release writes it.
func releaseOptions(tag string) Options {
	return Options{
		CACertificates: systemRoots, Tag: tag, PathInImage: "/manager", Title: "core-manager",
		Version: "v1.14.2-rsc.abc1234", Revision: "abc1234def5678", Source: "https://example.test/rsc",
	}
}

func requireRoots(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(systemRoots); err != nil {
		t.Skipf("no CA bundle on this machine: %v", err)
	}
}

// The index holds one image per platform Cluster API publishes for, each
// listed with its platform and running, at /manager, exactly the binary
// given for that platform; the index and every image say which release
// and revision they are, read back with go-containerregistry's own OCI
// layout reader.
func TestWriteIndex_HoldsEachPlatformsImageWithTheBinaryBuiltForIt(t *testing.T) {
	requireRoots(t)
	dir := t.TempDir()
	programs := ociimagetest.StaticPrograms(t, dir, "manager", Platforms)
	var binaries []string
	for _, binary := range programs {
		binaries = append(binaries, binary) // map order: the index must not depend on it
	}
	out := filepath.Join(dir, "core-manager-image.tar")
	o := releaseOptions("registry.example.com/capi/core-manager:v1.14.2-rsc.abc1234")
	if err := WriteIndex(out, binaries, o); err != nil {
		t.Fatal(err)
	}

	layoutDir := filepath.Join(dir, "layout")
	untar(t, out, layoutDir)
	if _, err := os.Stat(filepath.Join(layoutDir, "manifest.json")); err == nil {
		t.Error("the archive holds Docker's manifest.json, which can name one image only")
	}
	top, err := layout.ImageIndexFromPath(layoutDir)
	if err != nil {
		t.Fatalf("the archive is not an OCI layout: %v", err)
	}
	topManifest, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(topManifest.Manifests) != 1 {
		t.Fatalf("index.json names %d manifests, want the one image index", len(topManifest.Manifests))
	}
	named := topManifest.Manifests[0]
	if named.MediaType != types.OCIImageIndex {
		t.Errorf("index.json names a %s, want an image index", named.MediaType)
	}
	if got := named.Annotations["io.containerd.image.name"]; got != "registry.example.com/capi/core-manager:v1.14.2-rsc.abc1234" {
		t.Errorf("containerd would name it %q", got)
	}
	if got := named.Annotations["org.opencontainers.image.ref.name"]; got != "v1.14.2-rsc.abc1234" {
		t.Errorf("OCI tag %q", got)
	}
	idx, err := top.ImageIndex(named.Digest)
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	assertReleaseLabels(t, "the index's annotations", manifest.Annotations, o)
	if len(manifest.Manifests) != len(Platforms) {
		t.Fatalf("the index lists %d images, want %d", len(manifest.Manifests), len(Platforms))
	}
	for i, want := range Platforms {
		d := manifest.Manifests[i]
		if d.Platform == nil || !d.Platform.Equals(want) {
			t.Errorf("image %d is listed for %v, want %s", i, d.Platform, want)
			continue
		}
		if d.MediaType != types.OCIManifestSchema1 {
			t.Errorf("%s: media type %s", want, d.MediaType)
		}
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.OS != want.OS || cfg.Architecture != want.Architecture || cfg.Variant != want.Variant {
			t.Errorf("%s: the config says %s/%s/%s", want, cfg.OS, cfg.Architecture, cfg.Variant)
		}
		assertReleaseLabels(t, want.String()+"'s config labels", cfg.Config.Labels, o)
		if cfg.Config.User != User || len(cfg.Config.Entrypoint) != 1 || cfg.Config.Entrypoint[0] != "/manager" {
			t.Errorf("%s: user %q, entrypoint %v; want %s and [/manager]", want, cfg.Config.User, cfg.Config.Entrypoint, User)
		}
		binary, err := os.ReadFile(programs[want.String()])
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := imageFiles(t, img)["/manager"]; !ok || got.sum != sha256.Sum256(binary) {
			t.Errorf("%s: /manager is not the binary built for %s", want, want)
		}
	}
}

func assertReleaseLabels(t *testing.T, what string, got map[string]string, o Options) {
	t.Helper()
	for key, want := range map[string]string{
		"org.opencontainers.image.version":  o.Version,
		"org.opencontainers.image.revision": o.Revision,
		"org.opencontainers.image.source":   o.Source,
		"org.opencontainers.image.title":    o.Title,
	} {
		if got[key] != want {
			t.Errorf("%s: %s is %q, want %q", what, key, got[key], want)
		}
	}
}

// What ReadIndexArchive reports (the node test compares it with what
// containerd imported) is what the layout holds.
func TestReadIndexArchive_ReportsTheIndexAndEachPlatformsConfig(t *testing.T) {
	requireRoots(t)
	dir := t.TempDir()
	programs := ociimagetest.StaticPrograms(t, dir, "manager", Platforms)
	out := filepath.Join(dir, "image.tar")
	o := releaseOptions("rsc.lab/core-manager:dev")
	if err := WriteIndex(out, []string{programs["linux/amd64"], programs["linux/arm/v7"]}, o); err != nil {
		t.Fatal(err)
	}
	got, err := ReadIndexArchive(out)
	if err != nil {
		t.Fatal(err)
	}
	untar(t, out, filepath.Join(dir, "layout"))
	top, err := layout.ImageIndexFromPath(filepath.Join(dir, "layout"))
	if err != nil {
		t.Fatal(err)
	}
	topManifest, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "rsc.lab/core-manager:dev" || got.Digest != topManifest.Manifests[0].Digest || got.MediaType != types.OCIImageIndex {
		t.Errorf("read %s %s (%s), want rsc.lab/core-manager:dev %s, an image index", got.Name, got.Digest, got.MediaType, topManifest.Manifests[0].Digest)
	}
	idx, err := top.ImageIndex(got.Digest)
	if err != nil {
		t.Fatal(err)
	}
	for _, platform := range []string{"linux/amd64", "linux/arm/v7"} {
		img, ok := got.Image(platform)
		if !ok {
			t.Errorf("no %s image read", platform)
			continue
		}
		want, err := idx.Image(img.Manifest)
		if err != nil {
			t.Fatalf("%s: %v", platform, err)
		}
		if config, err := want.ConfigName(); err != nil || config != img.Config {
			t.Errorf("%s: config %s read, the layout has %s (%v)", platform, img.Config, config, err)
		}
		if img.Labels["org.opencontainers.image.version"] != o.Version {
			t.Errorf("%s: labels %v", platform, img.Labels)
		}
	}
	if _, ok := got.Image("linux/arm64"); ok {
		t.Error("an arm64 image was read from an index without one")
	}
}

// Two binaries for one platform are refused, naming both: a runtime would
// run either.
func TestBuildIndex_TwoBinariesForOnePlatformAreRefused(t *testing.T) {
	requireRoots(t)
	dir := t.TempDir()
	amd64 := v1.Platform{OS: "linux", Architecture: "amd64"}
	first := ociimagetest.StaticProgram(t, dir, "first", amd64)
	second := ociimagetest.StaticProgram(t, dir, "second", amd64)
	_, err := BuildIndex([]string{first, second}, releaseOptions("x:y"))
	if err == nil || !strings.Contains(err.Error(), first) || !strings.Contains(err.Error(), second) || !strings.Contains(err.Error(), "linux/amd64") {
		t.Errorf("two amd64 binaries: %v, want a refusal naming both and the platform", err)
	}
}

// The platform comes from the binary: its ELF machine, and for arm the
// GOARM its build information records.
func TestBinaryPlatform_ReadsTheArchitectureAndARMVersionFromTheBinary(t *testing.T) {
	programs := ociimagetest.StaticPrograms(t, t.TempDir(), "manager", Platforms)
	for _, want := range Platforms {
		got, err := BinaryPlatform(programs[want.String()])
		if err != nil || !got.Equals(want) {
			t.Errorf("the binary built for %s reads as %s (%v)", want, got, err)
		}
	}
	if _, err := BinaryPlatform("index_test.go"); err == nil || !strings.Contains(err.Error(), "not an ELF executable") {
		t.Errorf("a text file: %v", err)
	}
}
