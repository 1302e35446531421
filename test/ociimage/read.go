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
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// ArchivedIndex is what an image index archive (WriteIndex) holds, as a
// runtime that imports it sees it: the index under its name, and per
// platform the manifest and the config a runtime of that platform runs.
type ArchivedIndex struct {
	// Name is the name containerd gives the index on import.
	Name        string
	Digest      v1.Hash
	MediaType   types.MediaType
	Annotations map[string]string
	Images      []ArchivedImage
}

// ArchivedImage is one platform's image in an index.
type ArchivedImage struct {
	Platform v1.Platform
	// Manifest is the image's manifest digest; Config is its config's,
	// which containerd's CRI reports as the image's ID.
	Manifest, Config v1.Hash
	Labels           map[string]string
}

// Image returns the image for platform (os/arch[/variant]), or false.
func (a *ArchivedIndex) Image(platform string) (ArchivedImage, bool) {
	for _, img := range a.Images {
		if img.Platform.String() == platform {
			return img, true
		}
	}
	return ArchivedImage{}, false
}

// maxMetadataBlob bounds the blobs ReadIndexArchive keeps: manifests and
// configs are a few KiB, layers (which it skips) tens of MB.
const maxMetadataBlob = 1 << 20

// ReadIndexArchive reads the index an OCI layout archive names in its
// index.json, without unpacking a layer: what a test compares with what a
// runtime imported. It fails when index.json names anything but one image
// index, or a blob is missing or does not match its digest.
func ReadIndexArchive(archive string) (*ArchivedIndex, error) {
	blobs, indexJSON, err := readMetadata(archive)
	if err != nil {
		return nil, err
	}
	var top v1.IndexManifest
	if err := json.Unmarshal(indexJSON, &top); err != nil {
		return nil, fmt.Errorf("%s: index.json: %w", archive, err)
	}
	if len(top.Manifests) != 1 || top.Manifests[0].MediaType != types.OCIImageIndex {
		return nil, fmt.Errorf("%s: index.json names %d manifests, want one image index", archive, len(top.Manifests))
	}
	desc := top.Manifests[0]
	a := &ArchivedIndex{Name: desc.Annotations["io.containerd.image.name"], Digest: desc.Digest, MediaType: desc.MediaType}
	var idx v1.IndexManifest
	if err := blobJSON(blobs, desc.Digest, &idx); err != nil {
		return nil, fmt.Errorf("%s: the image index: %w", archive, err)
	}
	a.Annotations = idx.Annotations
	for _, d := range idx.Manifests {
		if d.Platform == nil {
			return nil, fmt.Errorf("%s: manifest %s has no platform", archive, d.Digest)
		}
		var m v1.Manifest
		if err := blobJSON(blobs, d.Digest, &m); err != nil {
			return nil, fmt.Errorf("%s: the %s manifest: %w", archive, d.Platform, err)
		}
		var cfg v1.ConfigFile
		if err := blobJSON(blobs, m.Config.Digest, &cfg); err != nil {
			return nil, fmt.Errorf("%s: the %s config: %w", archive, d.Platform, err)
		}
		a.Images = append(a.Images, ArchivedImage{Platform: *d.Platform, Manifest: d.Digest, Config: m.Config.Digest, Labels: cfg.Config.Labels})
	}
	return a, nil
}

// readMetadata returns the archive's small blobs by digest, checked
// against it, and its index.json.
func readMetadata(archive string) (map[v1.Hash][]byte, []byte, error) {
	f, err := os.Open(archive)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	blobs := map[v1.Hash][]byte{}
	var indexJSON []byte
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", archive, err)
		}
		if h.Size > maxMetadataBlob {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %s: %w", archive, h.Name, err)
		}
		name := path.Clean(h.Name)
		if name == "index.json" {
			indexJSON = data
			continue
		}
		if dir, file := path.Split(name); dir == "blobs/sha256/" {
			blobs[v1.Hash{Algorithm: "sha256", Hex: file}] = data
		}
	}
	if indexJSON == nil {
		return nil, nil, fmt.Errorf("%s has no index.json: not an OCI layout archive", archive)
	}
	return blobs, indexJSON, nil
}

func blobJSON(blobs map[v1.Hash][]byte, digest v1.Hash, into any) error {
	data, ok := blobs[digest]
	if !ok {
		return fmt.Errorf("blob %s is not in the archive", digest)
	}
	sum := sha256.Sum256(data)
	if digest.Algorithm != "sha256" || hex.EncodeToString(sum[:]) != digest.Hex {
		return fmt.Errorf("blob %s does not match its digest", digest)
	}
	return json.Unmarshal(data, into)
}
