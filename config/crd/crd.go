package crd

import (
	"embed"
	"fmt"
	"io/fs"
	"path"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

//go:embed bases/*.yaml
var bases embed.FS

// Definitions returns the embedded CRDs, decoded, in file name order.
func Definitions() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	entries, err := fs.ReadDir(bases, "bases")
	if err != nil {
		return nil, fmt.Errorf("read embedded CRDs: %w", err)
	}
	crds := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(entries))
	for _, entry := range entries {
		name := path.Join("bases", entry.Name())
		data, err := bases.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			return nil, fmt.Errorf("decode %s: %w", name, err)
		}
		crds = append(crds, crd)
	}
	return crds, nil
}
