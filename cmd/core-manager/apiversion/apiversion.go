package apiversion

import (
	"context"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/contract"
)

// Getter returns the function Cluster API's conversion.SetAPIVersionGetter
// takes: group/version of gk's current API version, read from its CRD's
// contract labels through reader.
func Getter(reader client.Reader) func(ctx context.Context, gk schema.GroupKind) (string, error) {
	return func(ctx context.Context, gk schema.GroupKind) (string, error) {
		name := contract.CRDName(gk.Group, gk.Kind)
		crd := &metav1.PartialObjectMetadata{}
		crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
		if err := reader.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			return "", fmt.Errorf("failed to get apiVersion for kind %s: failed to get CustomResourceDefinition %s: %w", gk.Kind, name, err)
		}
		version, err := contract.LatestAPIVersion(crd.GetLabels(), name)
		if err != nil {
			return "", fmt.Errorf("failed to get apiVersion for kind %s: %w", gk.Kind, err)
		}
		return schema.GroupVersion{Group: gk.Group, Version: version}.String(), nil
	}
}
