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
	"archive/tar"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/ociimage/ociimagetest"
)

// systemRoots is the bundle `make image` puts in the image.
const systemRoots = "/etc/ssl/certs/ca-certificates.crt"

// hostProgram builds a small static program for Linux on this machine's
// architecture: what the image is made of is tested here, and a static
// build of the whole controller would recompile every package without cgo
// (make image does that).
func hostProgram(t *testing.T, dir string) string {
	t.Helper()
	return ociimagetest.StaticProgram(t, dir, "runtime-sdk-controller", v1.Platform{OS: "linux", Architecture: runtime.GOARCH})
}

func TestWrite_TheImageRunsTheStaticControllerAsNonRootWithRootsAndNoShell(t *testing.T) {
	if _, err := os.Stat(systemRoots); err != nil {
		t.Skipf("no CA bundle on this machine: %v", err)
	}
	dir := t.TempDir()
	binary := hostProgram(t, dir)
	out := filepath.Join(dir, "image.tar")
	if err := Write(out, Options{Binary: binary, CACertificates: systemRoots, Tag: "runtime-sdk-controller:latest"}); err != nil {
		t.Fatal(err)
	}

	// Docker's view: manifest.json, as docker load and crane push read it.
	tag, err := name.NewTag("runtime-sdk-controller:latest")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tarball.ImageFromPath(out, &tag); err != nil {
		t.Fatalf("the archive does not load as Docker's tarball: %v", err)
	}
	// The OCI view: index.json and blobs.
	layoutDir := filepath.Join(dir, "layout")
	untar(t, out, layoutDir)
	index, err := layout.ImageIndexFromPath(layoutDir)
	if err != nil {
		t.Fatalf("the archive is not an OCI layout: %v", err)
	}
	manifest, err := index.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(manifest.Manifests) != 1 || manifest.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "latest" {
		t.Fatalf("index.json: %+v, want one image tagged latest", manifest.Manifests)
	}
	img, err := index.Image(manifest.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	if mt, err := img.MediaType(); err != nil || mt != types.OCIManifestSchema1 {
		t.Errorf("manifest media type %q (%v), want %q", mt, err, types.OCIManifestSchema1)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Config.Entrypoint; len(got) != 1 || got[0] != BinaryPath {
		t.Errorf("entrypoint %v, want [%s]", got, BinaryPath)
	}
	if user := cfg.Config.User; user == "" || user == "0" || strings.HasPrefix(user, "0:") || strings.HasPrefix(user, "root") {
		t.Errorf("user %q: the image must not run as root", user)
	}
	if cfg.OS != "linux" || cfg.Architecture == "" {
		t.Errorf("platform %s/%s", cfg.OS, cfg.Architecture)
	}

	files := map[string]int64{}
	passwd := ""
	for name, f := range imageFiles(t, img) {
		files[name] = f.size
		if name == "/etc/passwd" {
			passwd = string(f.data)
		}
		switch base := path.Base(name); {
		case base == "sh" || base == "bash" || base == "busybox" || strings.HasPrefix(name, "/bin/"):
			t.Errorf("the image holds %s: it must have no shell", name)
		}
	}
	info, err := os.Stat(binary)
	if err != nil {
		t.Fatal(err)
	}
	if files[BinaryPath] != info.Size() {
		t.Errorf("%s is %d bytes in the image, the binary %d", BinaryPath, files[BinaryPath], info.Size())
	}
	if files[CertsPath] == 0 {
		t.Errorf("no CA certificates at %s", CertsPath)
	}
	if !strings.Contains(passwd, ":65532:65532:nonroot:"+HomeDir+":") {
		t.Errorf("/etc/passwd does not name the user %s with its home %s", User, HomeDir)
	}
	home := imageFiles(t, img)[HomeDir]
	if !home.dir || home.uid != 65532 || home.mode&0o700 != 0o700 {
		t.Errorf("%s: dir %v, owner %d, mode %o; want the user's own folder", HomeDir, home.dir, home.uid, home.mode)
	}
	for name, f := range imageFiles(t, img) {
		if f.uid != 0 && name != HomeDir {
			t.Errorf("%s is owned by %d: only the home is the user's", name, f.uid)
		}
	}
}

func TestBuild_ADynamicallyLinkedBinaryIsRefused(t *testing.T) {
	dynamic, err := exec.LookPath("ls")
	if err != nil {
		t.Skip("no ls")
	}
	if _, err := BinaryPlatform(dynamic); err == nil {
		t.Skipf("%s is static on this machine", dynamic)
	}
	_, err = Build(Options{Binary: dynamic, CACertificates: systemRoots, Tag: "x:latest"})
	if err == nil || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Errorf("a dynamically linked binary: %v, want a refusal that says to build with CGO_ENABLED=0", err)
	}
}

func untar(t *testing.T, archive, dir string) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(dir, filepath.FromSlash(path.Clean("/"+h.Name)))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDefaultTag_IsTheImageTheManagerDeploys(t *testing.T) {
	manifest, err := os.ReadFile("../../config/manager/manager.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(manifest), "image: "+DefaultTag+"\n") {
		t.Errorf("config/manager/manager.yaml does not deploy %s, the image make image writes", DefaultTag)
	}
}

// The drop-in core manager's image puts the binary where Cluster API's
// Deployment runs it, /manager, as the entrypoint too.
func TestBuild_PathInImageIsTheBinaryAndTheEntrypoint(t *testing.T) {
	if _, err := os.Stat(systemRoots); err != nil {
		t.Skipf("no CA bundle on this machine: %v", err)
	}
	binary := hostProgram(t, t.TempDir())
	img, err := Build(Options{Binary: binary, CACertificates: systemRoots, PathInImage: "/manager", Title: "core-manager"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Config.Entrypoint; len(got) != 1 || got[0] != "/manager" {
		t.Errorf("entrypoint %v, want [/manager]", got)
	}
	if title := cfg.Config.Labels["org.opencontainers.image.title"]; title != "core-manager" {
		t.Errorf("title %q, want core-manager", title)
	}
	files := imageFiles(t, img)
	if f, ok := files["/manager"]; !ok || f.mode&0o111 == 0 {
		t.Error("no executable /manager in the image")
	}
	if _, ok := files[BinaryPath]; ok {
		t.Errorf("the image also holds %s", BinaryPath)
	}
}

// imageFile is one file of an image's filesystem; data is kept for files
// under 64 KiB only, sum for every file.
type imageFile struct {
	size int64
	mode int64
	uid  int
	dir  bool
	data []byte
	sum  [sha256.Size]byte
}

// imageFiles reads img's filesystem, keyed by absolute path.
func imageFiles(t *testing.T, img v1.Image) map[string]imageFile {
	t.Helper()
	reader := mutate.Extract(img)
	defer reader.Close()
	tr := tar.NewReader(reader)
	files := map[string]imageFile{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		f := imageFile{size: h.Size, mode: h.Mode, uid: h.Uid, dir: h.Typeflag == tar.TypeDir}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		f.sum = sha256.Sum256(data)
		if h.Size < 64<<10 {
			f.data = data
		}
		files[path.Clean("/"+h.Name)] = f
	}
}
