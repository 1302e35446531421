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
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// layoutWriter writes an OCI image layout into a tar stream: blobs by
// digest, oci-layout, and index.json naming what the archive holds.
type layoutWriter struct {
	tw *tar.Writer
	// written keeps a blob two images share from being written twice.
	written map[v1.Hash]bool
}

func newLayoutWriter(w io.Writer) *layoutWriter {
	return &layoutWriter{tw: tar.NewWriter(w), written: map[v1.Hash]bool{}}
}

func (l *layoutWriter) file(name string, data []byte) error {
	if err := l.tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data))}); err != nil {
		return err
	}
	_, err := l.tw.Write(data)
	return err
}

// blob writes data under its digest and returns its path in the layout.
func (l *layoutWriter) blob(h v1.Hash, data []byte) (string, error) {
	path := "blobs/" + h.Algorithm + "/" + h.Hex
	if l.written[h] {
		return path, nil
	}
	l.written[h] = true
	return path, l.file(path, data)
}

// image writes img's config, layers and manifest, and returns the paths
// of its config and layers.
func (l *layoutWriter) image(img v1.Image) (configPath string, layerPaths []string, err error) {
	config, err := img.RawConfigFile()
	if err != nil {
		return "", nil, err
	}
	configName, err := img.ConfigName()
	if err != nil {
		return "", nil, err
	}
	if configPath, err = l.blob(configName, config); err != nil {
		return "", nil, err
	}
	layers, err := img.Layers()
	if err != nil {
		return "", nil, err
	}
	for _, layer := range layers {
		path, err := l.layer(layer)
		if err != nil {
			return "", nil, err
		}
		layerPaths = append(layerPaths, path)
	}
	manifest, err := img.RawManifest()
	if err != nil {
		return "", nil, err
	}
	digest, err := img.Digest()
	if err != nil {
		return "", nil, err
	}
	_, err = l.blob(digest, manifest)
	return configPath, layerPaths, err
}

func (l *layoutWriter) layer(layer v1.Layer) (string, error) {
	digest, err := layer.Digest()
	if err != nil {
		return "", err
	}
	rc, err := layer.Compressed()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return "", err
	}
	return l.blob(digest, data)
}

// index writes every image idx lists, then idx's own manifest.
func (l *layoutWriter) index(idx v1.ImageIndex) error {
	manifest, err := idx.IndexManifest()
	if err != nil {
		return err
	}
	for _, d := range manifest.Manifests {
		img, err := idx.Image(d.Digest)
		if err != nil {
			return err
		}
		if _, _, err := l.image(img); err != nil {
			return err
		}
	}
	raw, err := idx.RawManifest()
	if err != nil {
		return err
	}
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	_, err = l.blob(digest, raw)
	return err
}

// close writes oci-layout and index.json, which names top as tag, and
// ends the tar stream.
func (l *layoutWriter) close(top v1.Descriptor, tag name.Tag) error {
	if err := l.file("oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)); err != nil {
		return err
	}
	top.Annotations = map[string]string{
		// The first is the OCI tag; the second is the name containerd
		// and Docker give the image on load.
		"org.opencontainers.image.ref.name": tag.TagStr(),
		"io.containerd.image.name":          containerdName(tag),
	}
	index, err := json.Marshal(v1.IndexManifest{
		SchemaVersion: 2,
		MediaType:     types.OCIImageIndex,
		Manifests:     []v1.Descriptor{top},
	})
	if err != nil {
		return err
	}
	if err := l.file("index.json", index); err != nil {
		return err
	}
	return l.tw.Close()
}

// writeArchive writes img as an OCI layout in a tar stream, with Docker's
// manifest.json beside it pointing at the same blobs.
func writeArchive(w io.Writer, img v1.Image, tag name.Tag) error {
	l := newLayoutWriter(w)
	configPath, layerPaths, err := l.image(img)
	if err != nil {
		return err
	}
	dockerManifest, err := json.Marshal([]struct {
		Config   string
		RepoTags []string
		Layers   []string
	}{{Config: configPath, RepoTags: []string{tag.String()}, Layers: layerPaths}})
	if err != nil {
		return err
	}
	if err := l.file("manifest.json", dockerManifest); err != nil {
		return err
	}
	top, err := descriptor(img)
	if err != nil {
		return err
	}
	return l.close(top, tag)
}

// writeIndexArchive writes idx and its images as an OCI layout in a tar
// stream, index.json naming idx itself (not its images), as a registry
// serves a multi-arch tag: a runtime that imports it records the index
// under the tag and runs the image of its own platform. It carries no
// Docker manifest.json, which can name single images only.
func writeIndexArchive(w io.Writer, idx v1.ImageIndex, tag name.Tag) error {
	l := newLayoutWriter(w)
	if err := l.index(idx); err != nil {
		return err
	}
	top, err := descriptor(idx)
	if err != nil {
		return err
	}
	return l.close(top, tag)
}

// manifest is what an image and an image index have in common: what
// index.json needs to name either.
type manifest interface {
	MediaType() (types.MediaType, error)
	RawManifest() ([]byte, error)
	Digest() (v1.Hash, error)
}

// descriptor is what index.json says of m: its media type, digest and size.
func descriptor(m manifest) (v1.Descriptor, error) {
	mediaType, err := m.MediaType()
	if err != nil {
		return v1.Descriptor{}, err
	}
	raw, err := m.RawManifest()
	if err != nil {
		return v1.Descriptor{}, err
	}
	digest, err := m.Digest()
	if err != nil {
		return v1.Descriptor{}, err
	}
	return v1.Descriptor{MediaType: mediaType, Digest: digest, Size: int64(len(raw))}, nil
}

// containerdName is the fully qualified name Docker and containerd give an
// image, docker.io/library/NAME:TAG for a short name.
func containerdName(tag name.Tag) string {
	registry := tag.RegistryStr()
	if registry == name.DefaultRegistry {
		registry = "docker.io"
	}
	return registry + "/" + tag.RepositoryStr() + ":" + tag.TagStr()
}

// writeAtomically writes out beside it and renames it, so that a failure
// never leaves a partial archive where a good one was.
func writeAtomically(out string, write func(*os.File) error) error {
	f, err := os.CreateTemp(filepath.Dir(out), filepath.Base(out)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", out, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	// CreateTemp makes the file 0600; an archive is for others to read.
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), out)
}
