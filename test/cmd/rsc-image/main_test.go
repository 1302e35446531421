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

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/ociimage"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/ociimage/ociimagetest"
)

// --index writes one image index of every --binary, labelled with the
// release; without it, more than one binary is refused rather than all
// but one dropped.
func TestRun_IndexOfEveryBinaryAndNoSilentDrop(t *testing.T) {
	if _, err := os.Stat("/etc/ssl/certs/ca-certificates.crt"); err != nil {
		t.Skipf("no CA bundle on this machine: %v", err)
	}
	dir := t.TempDir()
	programs := ociimagetest.StaticPrograms(t, dir, "manager", []v1.Platform{
		{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64"},
	})
	args := []string{
		"--binary", programs["linux/amd64"], "--binary", programs["linux/arm64"],
		"--path-in-image", "/manager", "--tag", "rsc.lab/core-manager:dev", "--version", "v9.9.9", "--revision", "abc",
	}
	out := filepath.Join(dir, "index.tar")
	var stdout, stderr bytes.Buffer
	if code := run(append(args, "--out", out), &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "--index") {
		t.Errorf("two binaries without --index: exit %d, %q; want a refusal that names --index", code, stderr.String())
	}
	if code := run(append(args, "--index", "--out", out), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, err := ociimage.ReadIndexArchive(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Images) != 2 || got.Name != "rsc.lab/core-manager:dev" || got.Annotations["org.opencontainers.image.version"] != "v9.9.9" {
		t.Errorf("wrote %s with %d images and annotations %v", got.Name, len(got.Images), got.Annotations)
	}
}
