package capinode

import (
	"encoding/base64"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

// injectCAFrom is cert-manager's CA injector annotation: namespace/name of
// the Certificate whose CA goes into the object's caBundle fields.
const injectCAFrom = "cert-manager.io/inject-ca-from"

// certificateValidity is far longer than any run.
const certificateValidity = 24 * time.Hour

// standIn is cert-manager's stand-in: the CA of each Certificate it
// issued, by namespace/name.
type standIn struct {
	cas map[string][]byte
}

// issue replaces each Certificate with the Secret cert-manager would write
// for it (tls.crt, tls.key and ca.crt, for its dnsNames), drops the
// Issuers, and returns the objects to apply.
func (s *standIn) issue(objects []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, u := range objects {
		if u.GroupVersionKind().Group != "cert-manager.io" {
			out = append(out, u)
			continue
		}
		if u.GetKind() != "Certificate" {
			continue // Issuers: nothing of cert-manager runs to read them
		}
		secretName, _, _ := unstructured.NestedString(u.Object, "spec", "secretName")
		dnsNames, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "dnsNames")
		if secretName == "" || len(dnsNames) == 0 {
			return nil, fmt.Errorf("the Certificate %s/%s names no secretName or dnsNames", u.GetNamespace(), u.GetName())
		}
		caPEM, certPEM, keyPEM, err := sampleextension.SelfSignedCertificate(dnsNames, certificateValidity)
		if err != nil {
			return nil, err
		}
		s.cas[u.GetNamespace()+"/"+u.GetName()] = caPEM
		secret := &unstructured.Unstructured{}
		secret.SetAPIVersion("v1")
		secret.SetKind("Secret")
		secret.SetNamespace(u.GetNamespace())
		secret.SetName(secretName)
		secret.SetAnnotations(map[string]string{"rsc.lab/stand-in-for": "cert-manager Certificate " + u.GetName()})
		secret.Object["type"] = string(corev1.SecretTypeTLS)
		secret.Object["stringData"] = map[string]any{
			corev1.TLSCertKey: string(certPEM), corev1.TLSPrivateKeyKey: string(keyPEM), "ca.crt": string(caPEM),
		}
		out = append(out, secret)
	}
	return out, nil
}

// inject sets the caBundle where cert-manager's CA injector would: a CRD's
// conversion webhook, and every webhook of a webhook configuration.
func (s *standIn) inject(u *unstructured.Unstructured) error {
	from := u.GetAnnotations()[injectCAFrom]
	if from == "" {
		return nil
	}
	ca, ok := s.cas[from]
	if !ok {
		return fmt.Errorf("%s %s asks for the CA of Certificate %s, which no components file defines", u.GetKind(), u.GetName(), from)
	}
	bundle := base64.StdEncoding.EncodeToString(ca)
	switch u.GetKind() {
	case "CustomResourceDefinition":
		if _, found, _ := unstructured.NestedMap(u.Object, "spec", "conversion", "webhook", "clientConfig"); found {
			return unstructured.SetNestedField(u.Object, bundle, "spec", "conversion", "webhook", "clientConfig", "caBundle")
		}
	case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
		webhooks, _, _ := unstructured.NestedSlice(u.Object, "webhooks")
		for i := range webhooks {
			w, _ := webhooks[i].(map[string]any)
			if err := unstructured.SetNestedField(w, bundle, "clientConfig", "caBundle"); err != nil {
				return err
			}
		}
		return unstructured.SetNestedSlice(u.Object, webhooks, "webhooks")
	}
	return nil
}
