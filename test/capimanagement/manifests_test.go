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
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
)

// Every conversion webhook and every admission webhook a provider ships
// points at that provider's server on 127.0.0.1, trusting its CA, never
// at an in-cluster Service; the CRDs keep their contract labels.
func TestManifests_EveryWebhookPointsAtItsProviderOnLoopback(t *testing.T) {
	binDir := Require(t)
	webhook := Webhook{Port: 12345, CAPEM: []byte("-----BEGIN CERTIFICATE-----\ntest\n-----END CERTIFICATE-----\n")}
	for _, p := range Providers {
		crds, err := CRDs(binDir, p, &webhook)
		if err != nil {
			t.Fatal(err)
		}
		conversions := 0
		for _, crd := range crds {
			if p != Core && crd.Labels["cluster.x-k8s.io/v1beta2"] == "" {
				t.Errorf("%s: CRD %s has no v1beta2 contract label: %v", p, crd.Name, crd.Labels)
			}
			c := crd.Spec.Conversion
			if c == nil || c.Strategy != apiextensionsv1.WebhookConverter {
				continue
			}
			conversions++
			if c.Webhook == nil || c.Webhook.ClientConfig == nil {
				t.Errorf("%s: CRD %s converts by webhook but names none", p, crd.Name)
				continue
			}
			cc := c.Webhook.ClientConfig
			if cc.Service != nil || cc.URL == nil || *cc.URL != "https://127.0.0.1:12345/convert" || !bytes.Equal(cc.CABundle, webhook.CAPEM) {
				t.Errorf("%s: CRD %s converts through %+v", p, crd.Name, cc)
			}
		}
		if conversions == 0 {
			t.Errorf("%s: no CRD has a conversion webhook; is this the rendered config/crd?", p)
		}

		configurations, err := WebhookConfigurations(binDir, p, webhook)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range configurations {
			if !strings.HasPrefix(c.GetName(), string(p)+"-") {
				t.Errorf("%s: %s %s is not named after its provider", p, c.GetKind(), c.GetName())
			}
			webhooks, _, _ := unstructured.NestedSlice(c.Object, "webhooks")
			if len(webhooks) == 0 {
				t.Errorf("%s: %s %s has no webhooks", p, c.GetKind(), c.GetName())
			}
			for _, w := range webhooks {
				hook, ok := w.(map[string]any)
				if !ok {
					t.Errorf("%s: %s %s has a webhook that is not an object", p, c.GetKind(), c.GetName())
					continue
				}
				url, _, _ := unstructured.NestedString(hook, "clientConfig", "url")
				ca, _, _ := unstructured.NestedString(hook, "clientConfig", "caBundle")
				_, hasService, _ := unstructured.NestedMap(hook, "clientConfig", "service")
				if hasService || !strings.HasPrefix(url, "https://127.0.0.1:12345/") || ca != base64.StdEncoding.EncodeToString(webhook.CAPEM) {
					t.Errorf("%s: webhook %v calls %q (service: %v)", p, hook["name"], url, hasService)
				}
			}
		}
	}
}

// Without a server to convert, conversion is None: a control plane can
// then serve the CRDs with no provider running.
func TestManifests_NoWebhookMeansNoConversion(t *testing.T) {
	binDir := Require(t)
	crds, err := CRDs(binDir, Infrastructure, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, crd := range crds {
		if c := crd.Spec.Conversion; c != nil && c.Strategy != apiextensionsv1.NoneConverter {
			t.Errorf("CRD %s converts with %s", crd.Name, c.Strategy)
		}
	}
}

// The providers are built from the very Cluster API release the baseline
// core manager is: all three of its modules, pinned.
func TestProvidersModule_PinsTheBaselinesVersion(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "hack", "capi-providers", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, module := range []string{capibaseline.Module, capibaseline.Module + "/api", capibaseline.Module + "/test"} {
		if want := module + " " + capibaseline.Version; !strings.Contains(string(data), want) {
			t.Errorf("hack/capi-providers/go.mod does not require %s", want)
		}
	}
}
