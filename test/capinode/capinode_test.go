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
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/apiservertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// Every components file renders with Variables; the core manager runs with
// the feature gates the process-based flow gives every manager; every
// manager serves plain-HTTP metrics where Scrape reads them; and every
// component has the webhook Service and Certificate the harness reads.
func TestComponents_RenderWithTheFlowsGates(t *testing.T) {
	binDir := capimanagement.Require(t)
	for _, comp := range Components {
		objects, err := capimanagement.RenderFile(context.Background(), binDir, comp.componentsFile(binDir), Variables)
		if err != nil {
			t.Fatalf("%s: %v", comp.Name, err)
		}
		if !hasObject(objects, "Service", comp.Namespace, comp.webhookService()) || !hasObject(objects, "Certificate", comp.Namespace, comp.servingCert()) {
			t.Errorf("%s: no Service %s or Certificate %s in %s", comp.Name, comp.webhookService(), comp.servingCert(), comp.Namespace)
		}
		for _, u := range objects {
			if u.GetKind() != "Deployment" {
				continue
			}
			args := strings.Join(managerArgs(t, u), " ")
			for _, want := range []string{"--diagnostics-address=:8080", "--insecure-diagnostics=true", "--leader-elect"} {
				if !strings.Contains(args, want) {
					t.Errorf("%s: manager args %q lack %s", comp.Name, args, want)
				}
			}
			if comp == Core {
				for _, gate := range strings.Split(capimanagement.FeatureGates, ",") {
					if !strings.Contains(args, gate) {
						t.Errorf("core: manager args %q lack %s, which the process-based flow sets", args, gate)
					}
				}
			}
		}
	}
}

// On a real kube-apiserver with cert-manager's own CRDs, the stand-in
// writes the Secret of the core's Certificate and gives every object that
// asks for its CA the caBundle; when a webhook configuration is deleted and
// applied again without it, as clusterctl upgrade does, or a CRD's
// caBundle is emptied in place, the CA comes back, the same one; and a
// Certificate it cannot issue is named in its error.
func TestCertManagerStandIn_IssuesEachCertificateAndKeepsInjectingItsCA(t *testing.T) {
	binDir := capimanagement.Require(t)
	env, err := apiservertest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := env.Client
	if err := InstallCertManagerCRDs(ctx, c, binDir, time.Minute); err != nil {
		t.Fatal(err)
	}
	objects, err := capimanagement.RenderFile(ctx, binDir, Core.componentsFile(binDir), Variables)
	if err != nil {
		t.Fatal(err)
	}
	var asking []*unstructured.Unstructured
	var webhooks *unstructured.Unstructured
	for _, u := range objects {
		switch {
		case u.GetKind() == "Namespace" || u.GroupVersionKind().Group == "cert-manager.io":
		case u.GetAnnotations()[injectCAFrom] != "":
			asking = append(asking, u)
			if u.GetKind() == "ValidatingWebhookConfiguration" {
				webhooks = u.DeepCopy()
			}
		default:
			continue
		}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
			t.Fatalf("apply %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
	if len(asking) < 2 || webhooks == nil {
		t.Fatalf("%d objects ask for a CA, none a ValidatingWebhookConfiguration: the components file changed", len(asking))
	}
	certs, stop := startCertManagerStandIn(ctx, c)
	defer stop()

	secret := &corev1.Secret{}
	polltest.Eventually(t, time.Minute, "the serving Certificate's Secret", func() (bool, string) {
		err := c.Get(ctx, client.ObjectKey{Namespace: Core.Namespace, Name: "capi-webhook-service-cert"}, secret)
		return err == nil && len(secret.Data["ca.crt"]) > 0, fmt.Sprint(err, certs.Err())
	})
	bundle := base64.StdEncoding.EncodeToString(secret.Data["ca.crt"])
	allInjected := func() (bool, string) {
		for _, want := range asking {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(want.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKey{Name: want.GetName()}, u); err != nil {
				return false, err.Error()
			}
			if got := caBundles(u); len(got) == 0 || !injected(u, bundle) {
				return false, fmt.Sprintf("%s %s has caBundles %d, not all the Certificate's CA", u.GetKind(), u.GetName(), len(got))
			}
		}
		return true, ""
	}
	polltest.Eventually(t, time.Minute, "every object asking for the CA to have it", allInjected)

	if err := c.Delete(ctx, webhooks.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, webhooks.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	polltest.Eventually(t, time.Minute, "the re-created webhook configuration to have the same CA again", allInjected)

	// An object the stand-in settled, edited in place: it reads it whole
	// again and puts the CA back.
	edited := false
	for _, want := range asking {
		if want.GetKind() != "CustomResourceDefinition" {
			continue
		}
		crd := &unstructured.Unstructured{}
		crd.SetGroupVersionKind(want.GroupVersionKind())
		if err := c.Get(ctx, client.ObjectKey{Name: want.GetName()}, crd); err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedField(crd.Object, "", "spec", "conversion", "webhook", "clientConfig", "caBundle"); err != nil {
			t.Fatal(err)
		}
		if err := c.Update(ctx, crd); err != nil {
			t.Fatal(err)
		}
		edited = true
		break
	}
	if !edited {
		t.Fatal("no CRD of the core asks for a CA: the components file changed")
	}
	polltest.Eventually(t, time.Minute, "the CRD whose caBundle was emptied to have the CA again", allInjected)

	bad := &unstructured.Unstructured{}
	bad.SetGroupVersionKind(schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "Certificate"})
	bad.SetNamespace(Core.Namespace)
	bad.SetName("no-dns-names")
	_ = unstructured.SetNestedField(bad.Object, "no-dns-names-tls", "spec", "secretName")
	_ = unstructured.SetNestedField(bad.Object, map[string]any{"name": "capi-selfsigned-issuer"}, "spec", "issuerRef")
	if err := c.Create(ctx, bad); err != nil {
		t.Fatal(err)
	}
	polltest.Eventually(t, time.Minute, "the stand-in to name the Certificate it cannot issue", func() (bool, string) {
		err := certs.Err()
		return err != nil && strings.Contains(err.Error(), "no-dns-names"), fmt.Sprint(err)
	})
}

func hasObject(objects []*unstructured.Unstructured, kind, namespace, name string) bool {
	for _, u := range objects {
		if u.GetKind() == kind && u.GetNamespace() == namespace && u.GetName() == name {
			return true
		}
	}
	return false
}

func managerArgs(t *testing.T, u *unstructured.Unstructured) []string {
	containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
	for _, c := range containers {
		container, _ := c.(map[string]any)
		if container["name"] == "manager" {
			args, _, _ := unstructured.NestedStringSlice(container, "args")
			return args
		}
	}
	t.Fatalf("Deployment %s has no manager container", u.GetName())
	return nil
}
