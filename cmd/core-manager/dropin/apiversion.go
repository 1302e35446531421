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

package dropin

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/contract"
)

// apiVersionGetter returns the function Cluster API's
// conversion.SetAPIVersionGetter takes: group/version of gk's current API
// version, the newest version gk's CRD lists for the newest contract it
// implements, read from its contract labels through reader. Cluster API's
// own getter lives in an internal package another module cannot import.
func apiVersionGetter(reader client.Reader) func(ctx context.Context, gk schema.GroupKind) (string, error) {
	return func(ctx context.Context, gk schema.GroupKind) (string, error) {
		name, crd, err := contract.ReadCRD(ctx, reader, gk)
		if err != nil {
			return "", fmt.Errorf("failed to get apiVersion for kind %s: failed to get CustomResourceDefinition %s: %w", gk.Kind, name, err)
		}
		version, err := contract.LatestAPIVersion(crd.GetLabels(), name)
		if err != nil {
			return "", fmt.Errorf("failed to get apiVersion for kind %s: %w", gk.Kind, err)
		}
		return schema.GroupVersion{Group: gk.Group, Version: version}.String(), nil
	}
}
