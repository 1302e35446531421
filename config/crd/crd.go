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

package crd

import (
	"embed"
	"fmt"
	"io/fs"
	"path"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

//go:embed bases/*.yaml templates/*.yaml
var files embed.FS

// Definitions returns the embedded CRDs this project serves, decoded, in
// file name order.
func Definitions() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	return decodeDir("bases")
}

// TemplateDefinitions returns the embedded template CRDs a ClusterClass
// references (GenericInfrastructureClusterTemplate and
// GenericControlPlaneTemplate), decoded, in file name order. A local
// control plane installs them beside Definitions, so that a ClusterClass can
// be created there without a provider.
func TemplateDefinitions() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	return decodeDir("templates")
}

// decodeDir decodes every file of the embedded directory dir.
func decodeDir(dir string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	entries, err := fs.ReadDir(files, dir)
	if err != nil {
		return nil, fmt.Errorf("read embedded CRDs: %w", err)
	}
	crds := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(entries))
	for _, entry := range entries {
		name := path.Join(dir, entry.Name())
		data, err := files.ReadFile(name)
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
