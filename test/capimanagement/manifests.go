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

package capimanagement

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strconv"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/yamlobjects"
)

// Provider names one of Cluster API's providers by its folder in DataDir.
type Provider string

// The providers whose CRDs and webhooks are rendered into DataDir.
const (
	Core           Provider = "core"
	Bootstrap      Provider = "bootstrap-kubeadm"
	ControlPlane   Provider = "control-plane-kubeadm"
	Infrastructure Provider = "infrastructure-docker"
)

// Providers lists every provider of a management cluster, core first.
var Providers = []Provider{Core, Bootstrap, ControlPlane, Infrastructure}

// Webhook is the port a provider's webhook server is reached at on
// 127.0.0.1 (Cluster API's servers listen on every interface and take no
// host flag), and the CA its serving certificate is signed by.
type Webhook struct {
	Port  int
	CAPEM []byte
}

// url is the server's address with path.
func (w Webhook) url(path string) string {
	return "https://127.0.0.1:" + strconv.Itoa(w.Port) + path
}

// CRDs returns p's CRDs as kustomize rendered them from its config/crd,
// contract labels included. With a webhook, their conversion webhooks
// point at it; without one (nil), conversion is None, for a control plane
// that serves the CRDs with no provider running.
func CRDs(binDir string, p Provider, webhook *Webhook) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	objects, err := yamlobjects.ReadFile(filepath.Join(binDir, DataDir, string(p), "crds.yaml"))
	if err != nil {
		return nil, fmt.Errorf("CRDs of %s: %w", p, err)
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, u := range objects {
		if u.GetKind() != "CustomResourceDefinition" {
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd); err != nil {
			return nil, fmt.Errorf("CRD %s of %s: %w", u.GetName(), p, err)
		}
		pointConversion(crd, webhook)
		crds = append(crds, crd)
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("%w (no CRDs for %s in %s)", ErrMissing, p, filepath.Join(binDir, DataDir))
	}
	return crds, nil
}

// pointConversion sends a CRD's conversion webhook to the provider's
// server on 127.0.0.1 in place of the in-cluster Service it names.
func pointConversion(crd *apiextensionsv1.CustomResourceDefinition, webhook *Webhook) {
	conversion := crd.Spec.Conversion
	if conversion == nil || conversion.Strategy != apiextensionsv1.WebhookConverter || conversion.Webhook == nil {
		return
	}
	if webhook == nil {
		crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
		return
	}
	path := "/convert"
	if svc := conversion.Webhook.ClientConfig; svc != nil && svc.Service != nil && svc.Service.Path != nil {
		path = *svc.Service.Path
	}
	url := webhook.url(path)
	conversion.Webhook.ClientConfig = &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: webhook.CAPEM}
}

// WebhookConfigurations returns p's mutating and validating webhook
// configurations as kustomize rendered them from its config/webhook, each
// named after p (every provider's are named alike) and every webhook
// pointing at the provider's server on 127.0.0.1.
func WebhookConfigurations(binDir string, p Provider, webhook Webhook) ([]*unstructured.Unstructured, error) {
	objects, err := yamlobjects.ReadFile(filepath.Join(binDir, DataDir, string(p), "webhooks.yaml"))
	if err != nil {
		return nil, fmt.Errorf("webhooks of %s: %w", p, err)
	}
	var configurations []*unstructured.Unstructured
	for _, u := range objects {
		if u.GetKind() != "MutatingWebhookConfiguration" && u.GetKind() != "ValidatingWebhookConfiguration" {
			continue // the Service the webhooks would be reached through
		}
		u.SetName(string(p) + "-" + u.GetName())
		webhooks, _, err := unstructured.NestedSlice(u.Object, "webhooks")
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
		}
		for i, w := range webhooks {
			hook, ok := w.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s %s: webhooks[%d] is not an object", u.GetKind(), u.GetName(), i)
			}
			path, _, _ := unstructured.NestedString(hook, "clientConfig", "service", "path")
			hook["clientConfig"] = map[string]any{"url": webhook.url(path), "caBundle": base64.StdEncoding.EncodeToString(webhook.CAPEM)}
		}
		if err := unstructured.SetNestedSlice(u.Object, webhooks, "webhooks"); err != nil {
			return nil, err
		}
		configurations = append(configurations, u)
	}
	if len(configurations) == 0 {
		return nil, fmt.Errorf("%w (no webhooks for %s in %s)", ErrMissing, p, filepath.Join(binDir, DataDir))
	}
	return configurations, nil
}
