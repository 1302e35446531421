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
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"path"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Paths and identity inside the image.
const (
	BinaryPath = "/runtime-sdk-controller"
	CertsPath  = "/etc/ssl/certs/ca-certificates.crt"
	// User is the distroless convention for "nonroot", so that
	// runAsNonRoot admits the image without a numeric runAsUser.
	User = "65532:65532"
	// DefaultTag is the name config/manager deploys.
	DefaultTag = "runtime-sdk-controller:latest"
)

// Options say what goes into the image.
type Options struct {
	// Binary is the controller, built static (CGO_ENABLED=0).
	Binary string
	// CACertificates is a PEM bundle of roots, usually the build machine's
	// /etc/ssl/certs/ca-certificates.crt.
	CACertificates string
	// Tag names the image in the tarball, such as
	// runtime-sdk-controller:latest.
	Tag string
	// Created is the image's creation time; zero keeps the epoch, so that
	// the same inputs give the same image digest.
	Created time.Time
	// PathInImage is where the binary goes, and the entrypoint; empty
	// means BinaryPath. The drop-in core manager goes to /manager, the
	// command Cluster API's Deployment runs.
	PathInImage string
	// Title is the image's org.opencontainers.image.title; empty means
	// runtime-sdk-controller.
	Title string
	// Version and Revision are the release's version and the source
	// revision it is built from, its org.opencontainers.image.version and
	// .revision; empty leaves them out (a development image).
	Version, Revision string
	// Source is the repository the image is built from, its
	// org.opencontainers.image.source; empty means DefaultSource.
	Source string
}

// DefaultSource is the project's repository.
const DefaultSource = "https://github.com/runtime-sdk-controller/runtime-sdk-controller"

func (o Options) pathInImage() string { return cmp.Or(o.PathInImage, BinaryPath) }

// labels are the OCI keys that say what the image is and where it comes
// from: each image's config carries them as labels, and an image index as
// its annotations, so that a reader finds them whether it looks at the
// index or at the image a runtime picked from it.
func (o Options) labels() map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":  cmp.Or(o.Title, "runtime-sdk-controller"),
		"org.opencontainers.image.source": cmp.Or(o.Source, DefaultSource),
	}
	if o.Version != "" {
		l["org.opencontainers.image.version"] = o.Version
	}
	if o.Revision != "" {
		l["org.opencontainers.image.revision"] = o.Revision
	}
	return l
}

// Write builds the image and writes it to out as an OCI image layout
// archive (oci-layout, index.json, blobs) that also carries Docker's
// manifest.json, as `docker save` writes since Docker 25: `docker load`
// and `crane push` read it, and so does anything that reads OCI layouts.
func Write(out string, o Options) error {
	img, err := Build(o)
	if err != nil {
		return err
	}
	tag, err := name.NewTag(o.Tag)
	if err != nil {
		return fmt.Errorf("tag %q: %w", o.Tag, err)
	}
	return writeAtomically(out, func(f *os.File) error { return writeArchive(f, img, tag) })
}

// Build returns the image.
func Build(o Options) (v1.Image, error) {
	binary, err := os.ReadFile(o.Binary)
	if err != nil {
		return nil, fmt.Errorf("binary: %w", err)
	}
	platform, err := BinaryPlatform(o.Binary)
	if err != nil {
		return nil, err
	}
	certs, err := os.ReadFile(o.CACertificates)
	if err != nil {
		return nil, fmt.Errorf("CA certificates: %w (install the ca-certificates package, or name another bundle)", err)
	}
	layerTar, err := layerContents(o.pathInImage(), binary, certs)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	if img, err = mutate.AppendLayers(img, layer); err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.Variant = platform.OS, platform.Architecture, platform.Variant
	cfg.Created = v1.Time{Time: o.Created}
	cfg.Config = v1.Config{
		Entrypoint: []string{o.pathInImage()},
		User:       User,
		WorkingDir: "/",
		Env:        []string{"SSL_CERT_FILE=" + CertsPath},
		Labels:     o.labels(),
	}
	return mutate.ConfigFile(img, cfg)
}

// HomeDir is the user's home, as /etc/passwd names it and distroless's
// nonroot image has it: the one folder the user may write besides /tmp.
// Programs built on clusterctl's library (the Cluster API Operator) create
// their configuration folder under it, and fail without it.
const HomeDir = "/home/nonroot"

// layerContents is the one layer: directories, the binary, the roots and
// the user database, all owned by root and not writable by the user, and
// the user's home, the user's own.
func layerContents(binaryPath string, binary, certs []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := []tar.Header{
		{Name: "etc/", Mode: 0o755}, {Name: "etc/ssl/", Mode: 0o755}, {Name: "etc/ssl/certs/", Mode: 0o755},
		{Name: "tmp/", Mode: 0o1777},
		{Name: "home/", Mode: 0o755}, {Name: HomeDir[1:] + "/", Mode: 0o700, Uid: 65532, Gid: 65532},
	}
	for _, d := range dirs {
		d.Typeflag = tar.TypeDir
		if err := tw.WriteHeader(&d); err != nil {
			return nil, err
		}
	}
	files := []struct {
		path string
		mode int64
		data []byte
	}{
		{binaryPath, 0o755, binary},
		{CertsPath, 0o644, certs},
		{"/etc/passwd", 0o644, []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:" + HomeDir + ":/sbin/nologin\n")},
		{"/etc/group", 0o644, []byte("root:x:0:\nnonroot:x:65532:\n")},
	}
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: path.Clean(f.path)[1:], Mode: f.mode, Size: int64(len(f.data))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
