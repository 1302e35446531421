package capinode

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// Every components file renders with Variables; the core manager runs with
// the feature gates the process-based flow gives every manager; every
// manager serves plain-HTTP metrics where Scrape reads them; and the
// stand-in leaves no cert-manager object, writes each Certificate's Secret,
// and gives every object that asks for a CA its caBundle.
func TestComponents_RenderWithTheFlowsGatesAndTheStandInReplacesCertManager(t *testing.T) {
	binDir := capimanagement.Require(t)
	certs := &standIn{cas: map[string][]byte{}}
	for _, comp := range Components {
		objects, err := capimanagement.RenderFile(context.Background(), binDir, comp.componentsFile(binDir), Variables)
		if err != nil {
			t.Fatalf("%s: %v", comp.Name, err)
		}
		if !hasObject(objects, "Service", comp.Namespace, comp.webhookService()) || !hasObject(objects, "Certificate", comp.Namespace, comp.servingCert()) {
			t.Errorf("%s: no Service %s or Certificate %s in %s", comp.Name, comp.webhookService(), comp.servingCert(), comp.Namespace)
		}
		if objects, err = certs.issue(objects); err != nil {
			t.Fatalf("%s: %v", comp.Name, err)
		}
		secrets, asking := 0, 0
		for _, u := range objects {
			if u.GroupVersionKind().Group == "cert-manager.io" {
				t.Errorf("%s: %s %s left for cert-manager", comp.Name, u.GetKind(), u.GetName())
			}
			if u.GetKind() == "Secret" && strings.HasSuffix(u.GetName(), "webhook-service-cert") {
				secrets++
			}
			if u.GetAnnotations()[injectCAFrom] != "" {
				asking++
				if err := certs.inject(u); err != nil {
					t.Fatalf("%s: %v", comp.Name, err)
				}
				if !hasCABundle(u) {
					t.Errorf("%s: %s %s asks for a CA and has no caBundle", comp.Name, u.GetKind(), u.GetName())
				}
			}
			if u.GetKind() == "Deployment" {
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
		// The test extension has no CRD and no webhook; its CA goes into
		// the ExtensionConfig (TestExtensionConfig).
		if secrets != 1 || (asking == 0) != (comp == TestExtension) {
			t.Errorf("%s: %d webhook Secrets written, %d objects asking for a CA; want one, and some for all but the test extension", comp.Name, secrets, asking)
		}
	}
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

func hasCABundle(u *unstructured.Unstructured) bool {
	if u.GetKind() == "CustomResourceDefinition" {
		b, _, _ := unstructured.NestedString(u.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle")
		return b != ""
	}
	webhooks, _, _ := unstructured.NestedSlice(u.Object, "webhooks")
	for _, w := range webhooks {
		b, _, _ := unstructured.NestedString(w.(map[string]any), "clientConfig", "caBundle")
		if b == "" {
			return false
		}
	}
	return len(webhooks) > 0
}
