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

package contract

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/gobuffalo/flect"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Versions are the contract versions whose labels name API versions a
// v1beta2 ClusterClass may reference, newest first: v1beta2 providers, and
// v1beta1 ones while that contract is still supported.
var Versions = []string{"v1beta2", "v1beta1"}

// Label is the CRD label listing, "_"-separated, the API versions of a
// kind that implement contract.
func Label(contract string) string { return clusterv1.GroupVersion.Group + "/" + contract }

// CRDName is the name of the CRD serving group and kind, as Cluster API
// derives it: the lower-case plural of the kind, a dot, the group.
func CRDName(group, kind string) string {
	return Plural(kind) + "." + group
}

// ReadCRD reads, through reader, the metadata of the CRD serving gk: its
// contract labels are what LatestAPIVersion reads. It returns the CRD's
// name even when the read fails, for the caller to name it in its error;
// the read's error is returned as is, for the caller to word.
func ReadCRD(ctx context.Context, reader client.Reader, gk schema.GroupKind) (string, *metav1.PartialObjectMetadata, error) {
	name := CRDName(gk.Group, gk.Kind)
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	if err := reader.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
		return name, nil, err
	}
	return name, crd, nil
}

// Plural is the lower-case plural Cluster API expects as a CRD's plural.
func Plural(kind string) string { return flect.Pluralize(strings.ToLower(kind)) }

// LatestAPIVersion picks, from a template CRD's labels, the newest API
// version of the newest contract it implements.
func LatestAPIVersion(labels map[string]string, crdName string) (string, error) {
	for _, c := range Versions {
		listed := labels[Label(c)]
		if listed == "" {
			continue
		}
		versions := strings.Split(listed, "_")
		sort.Slice(versions, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(versions[i], versions[j]) < 0 })
		return versions[len(versions)-1], nil
	}
	labels0 := make([]string, 0, len(Versions))
	for _, c := range Versions {
		labels0 = append(labels0, Label(c))
	}
	return "", fmt.Errorf("CustomResourceDefinition %s has none of the labels %s naming the API versions of a supported contract",
		crdName, strings.Join(labels0, ", "))
}
