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

package capinode

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/yamlobjects"
)

// Operator is the Cluster API Operator as the node runs it: its release's
// rendering of config/default (make node-test renders it into
// OperatorDataDir) with the node's image of it.
var Operator = Component{"capi-operator", "capi-operator-system", "capi-operator-controller-manager", "rsc.lab/cluster-api-operator:v0.29.0", "capi-operator-"}

// OperatorDataDir holds the operator's components file, under bin/.
const OperatorDataDir = "capi-operator-data"

// operatorGroup is the API group of the operator's provider kinds.
const operatorGroup = "operator.cluster.x-k8s.io"

// Labels and annotation the operator reads on a provider's ConfigMap.
const (
	operatorVersionLabel        = "provider.cluster.x-k8s.io/version"
	operatorCompressed          = "provider.cluster.x-k8s.io/compressed"
	releaseLabel                = "rsc.lab/release"
	operatorVariablesSecretName = "capi-variables"
)

// InstallOperator applies the operator's components file, with the node's
// image of it, and waits until it is rolled out and its webhooks served.
func (m *Management) InstallOperator(ctx context.Context, binDir string) error {
	objects, err := yamlobjects.ReadFile(filepath.Join(binDir, OperatorDataDir, "components.yaml"))
	if err != nil {
		return err
	}
	if err := m.apply(ctx, Operator, objects, Operator.Image, 0); err != nil {
		return fmt.Errorf("%s: %w", Operator.Name, err)
	}
	return m.WaitServed(ctx, Operator)
}

// OperatorProviders has the operator install every component from
// Cluster API's release in make clusterctl-repository's repository: for
// each provider, the release's metadata.yaml and components file in a
// ConfigMap of the provider's namespace (components gzipped, as the
// operator reads them when the file is over a ConfigMap's 1 MiB), and the
// provider object at ReleaseVersion, its fetchConfig selecting that
// ConfigMap, its variables from a Secret (configSecret) and its manager's
// imageUrl the node's image (coreImage for the core). The operator's
// fetchConfig.url reads only GitHub and GitLab, over HTTPS, and
// fetchConfig.oci an OCI registry, which the node does not have; a
// ConfigMap is its way for a repository of one's own without either.
func (m *Management) OperatorProviders(ctx context.Context, binDir, coreImage string, vars map[string]string) error {
	if vars == nil {
		vars = Variables
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: Operator.Namespace, Name: operatorVariablesSecretName}, StringData: vars}
	if err := m.c.Create(ctx, secret); err != nil {
		return fmt.Errorf("the variables' Secret: %w", err)
	}
	base := filepath.Join(binDir, RepositoryDir, "cluster-api")
	for _, p := range releaseProviders {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: p.comp.Namespace}}
		if err := m.c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		cm, err := releaseConfigMap(p, base)
		if err != nil {
			return err
		}
		if err := m.c.Create(ctx, cm); err != nil {
			return fmt.Errorf("the ConfigMap of %s: %w", p.label, err)
		}
		image := p.comp.Image
		if p.comp == Core {
			image = coreImage
		}
		if err := m.c.Create(ctx, operatorProviderWith(p, image)); err != nil {
			return fmt.Errorf("the %s %s: %w", p.kind, p.name, err)
		}
	}
	return nil
}

// operatorProviderWith is the provider object the operator installs p
// from: at ReleaseVersion, its fetchConfig selecting p's ConfigMap, its
// variables from the Secret, and its manager's imageUrl image.
func operatorProviderWith(p releaseProvider, image string) *unstructured.Unstructured {
	provider := operatorProvider(p)
	provider.Object["spec"] = map[string]any{
		"version":      ReleaseVersion,
		"fetchConfig":  map[string]any{"selector": map[string]any{"matchLabels": map[string]any{releaseLabel: p.label}}},
		"configSecret": map[string]any{"name": operatorVariablesSecretName, "namespace": Operator.Namespace},
		"deployment":   map[string]any{"containers": []any{map[string]any{"name": "manager", "imageUrl": image}}},
	}
	return provider
}

// releaseConfigMap is a provider's release as the operator's ConfigMap
// source reads it.
func releaseConfigMap(p releaseProvider, base string) (*corev1.ConfigMap, error) {
	components, err := os.ReadFile(p.path(base))
	if err != nil {
		return nil, err
	}
	metadata, err := os.ReadFile(filepath.Join(filepath.Dir(p.path(base)), "metadata.yaml"))
	if err != nil {
		return nil, err
	}
	var zipped bytes.Buffer
	w := gzip.NewWriter(&zipped)
	if _, err := w.Write(components); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: p.comp.Namespace, Name: p.label + "-" + ReleaseVersion,
			Labels:      map[string]string{operatorVersionLabel: ReleaseVersion, releaseLabel: p.label},
			Annotations: map[string]string{operatorCompressed: "true"},
		},
		Data:       map[string]string{"metadata": string(metadata)},
		BinaryData: map[string][]byte{"components": zipped.Bytes()},
	}, nil
}

// WaitOperatorProvidersReady waits until the operator reports every
// provider installed at ReleaseVersion and Ready.
func (m *Management) WaitOperatorProvidersReady(ctx context.Context) error {
	return polltest.WithinContext(ctx, m.timeout, "every provider Ready as the operator reports it", func() (bool, string) {
		var waiting []string
		for _, p := range releaseProviders {
			u := operatorProvider(p)
			if err := m.c.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
				return false, err.Error()
			}
			installed, _, _ := unstructured.NestedString(u.Object, "status", "installedVersion")
			ready, why := conditionTrue(u, "Ready")
			if installed != ReleaseVersion || !ready {
				waiting = append(waiting, fmt.Sprintf("%s %s: installed %q, %s", p.kind, p.name, installed, why))
			}
		}
		return len(waiting) == 0, strings.Join(waiting, "; ")
	})
}

// conditionTrue reports whether the object's condition is True, and else
// its reason and message.
func conditionTrue(u *unstructured.Unstructured, kind string) (bool, string) {
	conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conditions {
		cond, _ := c.(map[string]any)
		if cond["type"] == kind {
			return cond["status"] == "True", fmt.Sprintf("%s %v: %v %v", kind, cond["status"], cond["reason"], cond["message"])
		}
	}
	return false, kind + " not reported"
}

// SetOperatorCoreImage sets the CoreProvider's manager imageUrl, the
// operator's way to change the image, and waits until the core runs it.
func (m *Management) SetOperatorCoreImage(ctx context.Context, image string) error {
	// The operator writes the CoreProvider's status meanwhile: read again
	// on a conflict.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u := operatorProvider(coreProvider)
		if err := m.c.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
			return err
		}
		if err := unstructured.SetNestedSlice(u.Object, []any{map[string]any{"name": "manager", "imageUrl": image}}, "spec", "deployment", "containers"); err != nil {
			return err
		}
		return m.c.Update(ctx, u)
	})
	if err != nil {
		return err
	}
	err = polltest.WithinContext(ctx, m.timeout, "the operator to set the core's image to "+image, func() (bool, string) {
		got, err := m.CoreImage(ctx)
		return got == image, fmt.Sprint(got, err)
	})
	if err != nil {
		return err
	}
	return m.WaitServed(ctx, Core)
}

// operatorProvider is an empty object of the provider's kind, named as
// the operator expects it, in its component's namespace.
func operatorProvider(p releaseProvider) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: operatorGroup, Version: "v1alpha2", Kind: p.kind})
	u.SetNamespace(p.comp.Namespace)
	u.SetName(p.name)
	return u
}

// operatorProviderGone is how long the operator may take to remove a
// provider's components once its object is deleted.
const operatorProviderGone = 3 * time.Minute

// DeleteOperatorProviders deletes every provider object, the core last as
// the operator's preflight asks, and waits until each is gone (the
// operator removes its components, CRDs and namespace kept).
func (m *Management) DeleteOperatorProviders(ctx context.Context) error {
	for i := len(releaseProviders) - 1; i >= 0; i-- {
		p := releaseProviders[i]
		u := operatorProvider(p)
		if err := m.c.Delete(ctx, u); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		err := polltest.WithinContext(ctx, operatorProviderGone, p.kind+" "+p.name+" gone", func() (bool, string) {
			err := m.c.Get(ctx, client.ObjectKeyFromObject(u), u.DeepCopy())
			return apierrors.IsNotFound(err), fmt.Sprint(err)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
