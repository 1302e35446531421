package ociimage

import (
	"archive/tar"
	"encoding/json"
	"io"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// writeArchive writes img as an OCI layout in a tar stream, with Docker's
// manifest.json beside it pointing at the same blobs.
func writeArchive(w io.Writer, img v1.Image, tag name.Tag) error {
	tw := tar.NewWriter(w)
	file := func(name string, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data))}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	blob := func(h v1.Hash, data []byte) (string, error) {
		path := "blobs/" + h.Algorithm + "/" + h.Hex
		return path, file(path, data)
	}

	manifest, err := img.RawManifest()
	if err != nil {
		return err
	}
	manifestDigest, err := img.Digest()
	if err != nil {
		return err
	}
	config, err := img.RawConfigFile()
	if err != nil {
		return err
	}
	configName, err := img.ConfigName()
	if err != nil {
		return err
	}
	configPath, err := blob(configName, config)
	if err != nil {
		return err
	}
	layers, err := img.Layers()
	if err != nil {
		return err
	}
	var layerPaths []string
	for _, l := range layers {
		digest, err := l.Digest()
		if err != nil {
			return err
		}
		rc, err := l.Compressed()
		if err != nil {
			return err
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return err
		}
		path, err := blob(digest, data)
		if err != nil {
			return err
		}
		layerPaths = append(layerPaths, path)
	}
	if _, err := blob(manifestDigest, manifest); err != nil {
		return err
	}

	if err := file("oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)); err != nil {
		return err
	}
	index, err := json.Marshal(v1.IndexManifest{
		SchemaVersion: 2,
		MediaType:     types.OCIImageIndex,
		Manifests: []v1.Descriptor{{
			MediaType: types.OCIManifestSchema1,
			Digest:    manifestDigest,
			Size:      int64(len(manifest)),
			Annotations: map[string]string{
				// The first is the OCI tag; the second is the name
				// containerd and Docker give the image on load.
				"org.opencontainers.image.ref.name": tag.TagStr(),
				"io.containerd.image.name":          containerdName(tag),
			},
		}},
	})
	if err != nil {
		return err
	}
	if err := file("index.json", index); err != nil {
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
	if err := file("manifest.json", dockerManifest); err != nil {
		return err
	}
	return tw.Close()
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
