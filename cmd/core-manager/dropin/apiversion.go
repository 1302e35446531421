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
