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
	"errors"
	"fmt"
	"os"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// BuildIndex builds one image per binary, each as Build builds it from o
// with that binary (o.Binary is not read), and the OCI image index that
// lists them, each under the platform its binary is for (BinaryPlatform),
// in the order of Platforms. The index carries o's labels as its
// annotations. Two binaries for one platform are refused: a runtime would
// pick either.
func BuildIndex(binaries []string, o Options) (v1.ImageIndex, error) {
	if len(binaries) == 0 {
		return nil, errors.New("an image index needs at least one binary")
	}
	byPlatform := map[string]mutate.IndexAddendum{}
	from := map[string]string{}
	for _, binary := range binaries {
		o.Binary = binary
		img, err := Build(o)
		if err != nil {
			return nil, err
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			return nil, err
		}
		platform := cfg.Platform()
		key := platform.String()
		if other, ok := from[key]; ok {
			return nil, fmt.Errorf("binaries %s and %s are both for %s: an index holds one image per platform", other, binary, key)
		}
		from[key] = binary
		byPlatform[key] = mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: platform}}
	}
	var adds []mutate.IndexAddendum
	for _, p := range Platforms {
		if add, ok := byPlatform[p.String()]; ok {
			adds = append(adds, add)
		}
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	idx = mutate.AppendManifests(idx, adds...)
	annotated, ok := mutate.Annotations(idx, o.labels()).(v1.ImageIndex)
	if !ok {
		return nil, errors.New("annotating the image index did not return an index")
	}
	return annotated, nil
}

// WriteIndex builds the image index of binaries (BuildIndex) and writes
// it to out as an OCI image layout archive whose index.json names the
// index as o.Tag: what `ctr images import` reads (it records the index
// under the tag and unpacks the image of the platform asked for), and,
// once unpacked into a folder, what `crane push` pushes as the index.
func WriteIndex(out string, binaries []string, o Options) error {
	idx, err := BuildIndex(binaries, o)
	if err != nil {
		return err
	}
	tag, err := name.NewTag(o.Tag)
	if err != nil {
		return fmt.Errorf("tag %q: %w", o.Tag, err)
	}
	return writeAtomically(out, func(f *os.File) error { return writeIndexArchive(f, idx, tag) })
}
