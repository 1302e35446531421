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

package minimalclass

import (
	"context"
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/contract"
)

// TemplateKind is a template CRD of the kind providers ship.
type TemplateKind struct {
	Group, Kind string
	// Versions are served; the last one is the storage version.
	Versions []string
	// Contract is the value of its v1beta2 contract label.
	Contract string
}

// Version is the newest version the kind serves.
func (k TemplateKind) Version() string { return k.Versions[len(k.Versions)-1] }

// Ref references a template of this kind at version.
func (k TemplateKind) Ref(version, name string) clusterv1.ClusterClassTemplateReference {
	return clusterv1.ClusterClassTemplateReference{APIVersion: k.Group + "/" + version, Kind: k.Kind, Name: name}
}

// The template kinds ClusterClass references.
var (
	InfrastructureCluster = TemplateKind{"infrastructure.cluster.x-k8s.io", "GenericInfrastructureClusterTemplate", []string{"v1beta2"}, "v1beta2"}
	ControlPlane          = TemplateKind{"controlplane.cluster.x-k8s.io", "GenericControlPlaneTemplate", []string{"v1beta2"}, "v1beta2"}
)

// Names of the templates ClusterClass references, in its namespace.
const (
	InfrastructureTemplateName = "infra"
	ControlPlaneTemplateName   = "control-plane"
)

// ClusterClass returns a ClusterClass in namespace named name with the given
// patches, referencing the templates Templates(namespace) returns.
func ClusterClass(namespace, name string, patches ...clusterv1.ClusterClassPatch) *clusterv1.ClusterClass {
	return &clusterv1.ClusterClass{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: clusterv1.ClusterClassSpec{
			Infrastructure: clusterv1.InfrastructureClass{TemplateRef: InfrastructureCluster.Ref(InfrastructureCluster.Version(), InfrastructureTemplateName)},
			ControlPlane:   clusterv1.ControlPlaneClass{TemplateRef: ControlPlane.Ref(ControlPlane.Version(), ControlPlaneTemplateName)},
			Patches:        patches,
		},
	}
}

// TemplateCRDs are the CRDs of the kinds ClusterClass references.
func TemplateCRDs() []*apiextensionsv1.CustomResourceDefinition {
	return []*apiextensionsv1.CustomResourceDefinition{CRD(InfrastructureCluster), CRD(ControlPlane)}
}

// Templates are the templates ClusterClass references in namespace.
func Templates(namespace string) []*unstructured.Unstructured {
	return []*unstructured.Unstructured{
		Template(namespace, InfrastructureCluster, InfrastructureTemplateName),
		Template(namespace, ControlPlane, ControlPlaneTemplateName),
	}
}

// CRD is a CRD for k: namespaced, any content, labelled with its contract.
func CRD(k TemplateKind) *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: contract.CRDName(k.Group, k.Kind), Labels: map[string]string{contract.Label("v1beta2"): k.Contract}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: k.Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Kind: k.Kind, ListKind: k.Kind + "List", Plural: contract.Plural(k.Kind), Singular: strings.ToLower(k.Kind),
			},
			Scope: apiextensionsv1.NamespaceScoped,
		},
	}
	for i, v := range k.Versions {
		crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
			Name: v, Served: true, Storage: i == len(k.Versions)-1,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
				Type: "object", XPreserveUnknownFields: ptr.To(true),
			}},
		})
	}
	return crd
}

// Template is an empty template of kind k.
func Template(namespace string, k TemplateKind, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(k.Group + "/" + k.Version())
	u.SetKind(k.Kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	u.Object["spec"] = map[string]any{"template": map[string]any{"spec": map[string]any{}}}
	return u
}

// OwnTemplates points cc at templates of its own, named after it, and
// returns them for the caller to create. Tools that create thousands of
// ClusterClasses use it: each template then has one owner, where templates
// shared by a whole namespace would carry thousands of ownerReferences.
func OwnTemplates(cc *clusterv1.ClusterClass) []*unstructured.Unstructured {
	infra := cc.Name + "-" + InfrastructureTemplateName
	controlPlane := cc.Name + "-" + ControlPlaneTemplateName
	cc.Spec.Infrastructure.TemplateRef.Name = infra
	cc.Spec.ControlPlane.TemplateRef.Name = controlPlane
	return []*unstructured.Unstructured{
		Template(cc.Namespace, InfrastructureCluster, infra),
		Template(cc.Namespace, ControlPlane, controlPlane),
	}
}

// CreateWithOwnTemplates creates cc's own templates (see OwnTemplates;
// those that exist already are kept), then cc.
func CreateWithOwnTemplates(ctx context.Context, c client.Client, cc *clusterv1.ClusterClass) error {
	for _, t := range OwnTemplates(cc) {
		if err := c.Create(ctx, t); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create %s %s/%s: %w", t.GetKind(), t.GetNamespace(), t.GetName(), err)
		}
	}
	return c.Create(ctx, cc)
}
