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
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/yamlobjects"
)

// CertManagerCRDsDir is where make clusterctl-repository copies
// cert-manager's CRDs, under bin/.
const CertManagerCRDsDir = "cert-manager-crds"

// injectCAFrom is cert-manager's CA injector annotation: namespace/name of
// the Certificate whose CA goes into the object's caBundle fields.
const injectCAFrom = "cert-manager.io/inject-ca-from"

// standInAnnotation marks every Secret the stand-in wrote.
const standInAnnotation = "rsc.lab/stand-in-for"

// certificateValidity is far longer than any run.
const certificateValidity = 24 * time.Hour

// standInPeriod is how often the stand-in looks at the cluster: a webhook
// configuration clusterctl has just re-created waits at most this long for
// its CA.
const standInPeriod = 500 * time.Millisecond

var (
	certificates = schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "CertificateList"}
	// caConsumers are the kinds cert-manager's CA injector writes to.
	caConsumers = []schema.GroupVersionKind{
		{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinitionList"},
		{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfigurationList"},
		{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingWebhookConfigurationList"},
	}
)

// InstallCertManagerCRDs applies cert-manager's own CRDs (make
// clusterctl-repository copies them from its release) and waits until they
// are served, so that Certificates and Issuers are stored as real objects
// and clusterctl's check of an externally provisioned cert-manager passes.
func InstallCertManagerCRDs(ctx context.Context, c client.Client, binDir string, timeout time.Duration) error {
	files, err := filepath.Glob(filepath.Join(binDir, CertManagerCRDsDir, "*.yaml"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no cert-manager CRDs in %s: run make clusterctl-repository", filepath.Join(binDir, CertManagerCRDsDir))
	}
	var names []string
	for _, f := range files {
		objects, err := yamlobjects.ReadFile(f)
		if err != nil {
			return err
		}
		for _, u := range objects {
			if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
				return fmt.Errorf("apply %s: %w", u.GetName(), err)
			}
			names = append(names, u.GetName())
		}
	}
	return waitEstablished(ctx, c, names, timeout)
}

// certManagerStandIn does, for as long as it runs, the two things of
// cert-manager that Cluster API's components need: for each Certificate it
// writes the Secret cert-manager would (tls.crt, tls.key and ca.crt, a
// self-signed certificate for its dnsNames), and it puts that CA where
// cert-manager's CA injector would (the conversion webhook of a CRD and
// every webhook of a webhook configuration annotated
// cert-manager.io/inject-ca-from). It runs as a loop, as cert-manager does,
// because clusterctl deletes and re-creates a provider's objects on
// upgrade. It issues nothing else: Issuers are read by no one.
type certManagerStandIn struct {
	c    client.Client
	mu   sync.Mutex
	last error
	// settled holds, per object asking for a CA (kind/name), the
	// resourceVersion at which it was seen with that CA, and the CA: an
	// object unchanged since is not read whole again. Every pass runs on
	// one goroutine at a time.
	settled map[string]settledCA
}

// settledCA is an object's resourceVersion and the bundle it then had.
type settledCA struct{ resourceVersion, bundle string }

// startCertManagerStandIn runs the stand-in until ctx ends or stop is
// called.
func startCertManagerStandIn(ctx context.Context, c client.Client) (*certManagerStandIn, func()) {
	s := &certManagerStandIn{c: c, settled: map[string]settledCA{}}
	s.pass(ctx)
	return s, polltest.Every(ctx, standInPeriod, s.pass)
}

func (s *certManagerStandIn) pass(ctx context.Context) {
	err := s.reconcile(ctx)
	s.mu.Lock()
	s.last = err
	s.mu.Unlock()
}

// Err is what went wrong in the last pass, for timeouts to report.
func (s *certManagerStandIn) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

func (s *certManagerStandIn) reconcile(ctx context.Context) error {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(certificates)
	if err := s.c.List(ctx, list); err != nil {
		return fmt.Errorf("cert-manager stand-in: list Certificates: %w", err)
	}
	var errs []error
	cas := map[string][]byte{}
	for i := range list.Items {
		ca, err := s.issue(ctx, &list.Items[i])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cas[list.Items[i].GetNamespace()+"/"+list.Items[i].GetName()] = ca
	}
	requests, err := caRequestsOf(ctx, s.c, "")
	if err != nil {
		errs = append(errs, err)
	}
	for _, r := range requests {
		ca, ok := cas[r.from()]
		if !ok {
			continue // its Certificate is not applied yet, or not issued: the next pass
		}
		bundle := base64.StdEncoding.EncodeToString(ca)
		if s.settled[r.key()] == (settledCA{r.ResourceVersion, bundle}) {
			continue
		}
		u, err := r.whole(ctx, s.c)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if u == nil {
			continue // deleted since the list
		}
		resourceVersion, err := s.inject(ctx, u, bundle)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if resourceVersion != "" {
			s.settled[r.key()] = settledCA{resourceVersion, bundle}
		}
	}
	return errors.Join(errs...)
}

// caRequest is an object annotated cert-manager.io/inject-ca-from, as a
// metadata-only list shows it.
type caRequest struct {
	kind schema.GroupVersionKind
	metav1.PartialObjectMetadata
}

// from is the Certificate whose CA the object asks for, namespace/name.
func (r caRequest) from() string { return r.Annotations[injectCAFrom] }

func (r caRequest) key() string { return r.kind.Kind + "/" + r.Name }

// whole reads the object whole; nil when it is gone.
func (r caRequest) whole(ctx context.Context, c client.Client) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(r.kind)
	if err := c.Get(ctx, client.ObjectKey{Name: r.Name}, u); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	return u, nil
}

// caRequestsOf lists, by metadata only, the objects annotated
// cert-manager.io/inject-ca-from (with Certificate from, when not empty):
// every CRD of Cluster API's components asks, and reading them all whole
// twice a second would be megabytes a pass.
func caRequestsOf(ctx context.Context, c client.Client, from string) ([]caRequest, error) {
	var requests []caRequest
	for _, gvk := range caConsumers {
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(gvk)
		if err := c.List(ctx, list); err != nil {
			return nil, fmt.Errorf("cert-manager stand-in: list %s: %w", gvk.Kind, err)
		}
		kind := gvk.GroupVersion().WithKind(strings.TrimSuffix(gvk.Kind, "List"))
		for _, item := range list.Items {
			want := item.Annotations[injectCAFrom]
			if want == "" || (from != "" && want != from) {
				continue
			}
			requests = append(requests, caRequest{kind: kind, PartialObjectMetadata: item})
		}
	}
	return requests, nil
}

// caBundles are the caBundle fields of a CRD's conversion webhook or of
// every webhook of a webhook configuration.
func caBundles(u *unstructured.Unstructured) []string {
	if u.GetKind() == "CustomResourceDefinition" {
		if _, found, _ := unstructured.NestedMap(u.Object, "spec", "conversion", "webhook", "clientConfig"); !found {
			return nil
		}
		b, _, _ := unstructured.NestedString(u.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle")
		return []string{b}
	}
	var out []string
	webhooks, _, _ := unstructured.NestedSlice(u.Object, "webhooks")
	for _, w := range webhooks {
		m, _ := w.(map[string]any)
		b, _, _ := unstructured.NestedString(m, "clientConfig", "caBundle")
		out = append(out, b)
	}
	return out
}

// injected reports whether every caBundle of the object is bundle.
func injected(u *unstructured.Unstructured, bundle string) bool {
	return !slices.ContainsFunc(caBundles(u), func(b string) bool { return b != bundle })
}

// CAInjected reports, for a timeout's message, which objects asking for
// the CA of Certificate from do not have ca in every caBundle yet.
func CAInjected(ctx context.Context, c client.Client, from string, ca []byte) ([]string, error) {
	requests, err := caRequestsOf(ctx, c, from)
	if err != nil {
		return nil, err
	}
	bundle := base64.StdEncoding.EncodeToString(ca)
	var missing []string
	for _, r := range requests {
		u, err := r.whole(ctx, c)
		if err != nil {
			return nil, err
		}
		if u != nil && !injected(u, bundle) {
			missing = append(missing, u.GetKind()+" "+u.GetName())
		}
	}
	return missing, nil
}

// issue makes sure the Certificate's Secret exists and returns its CA.
func (s *certManagerStandIn) issue(ctx context.Context, cert *unstructured.Unstructured) ([]byte, error) {
	secretName, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
	dnsNames, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
	if secretName == "" || len(dnsNames) == 0 {
		return nil, fmt.Errorf("cert-manager stand-in: the Certificate %s/%s names no secretName or dnsNames", cert.GetNamespace(), cert.GetName())
	}
	secret := &corev1.Secret{}
	err := s.c.Get(ctx, client.ObjectKey{Namespace: cert.GetNamespace(), Name: secretName}, secret)
	if err == nil {
		if ca := secret.Data["ca.crt"]; len(ca) > 0 {
			return ca, nil
		}
		return nil, fmt.Errorf("cert-manager stand-in: the Secret %s/%s of Certificate %s has no ca.crt", secret.Namespace, secret.Name, cert.GetName())
	}
	if !apierrors.IsNotFound(err) {
		return nil, err
	}
	caPEM, certPEM, keyPEM, err := sampleextension.SelfSignedCertificate(dnsNames, certificateValidity)
	if err != nil {
		return nil, err
	}
	secret = &corev1.Secret{}
	secret.Namespace, secret.Name = cert.GetNamespace(), secretName
	secret.Annotations = map[string]string{standInAnnotation: "cert-manager Certificate " + cert.GetName()}
	secret.Type = corev1.SecretTypeTLS
	secret.Data = map[string][]byte{corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM, "ca.crt": caPEM}
	if err := s.c.Create(ctx, secret); err != nil {
		return nil, fmt.Errorf("cert-manager stand-in: write the Secret of Certificate %s/%s: %w", cert.GetNamespace(), cert.GetName(), err)
	}
	return caPEM, nil
}

// inject sets every caBundle of an object that asks for a Certificate's CA
// to bundle, and returns the object's resourceVersion once it holds it
// (empty when another writer came first: the next pass reads it again).
func (s *certManagerStandIn) inject(ctx context.Context, u *unstructured.Unstructured, bundle string) (string, error) {
	if injected(u, bundle) {
		return u.GetResourceVersion(), nil
	}
	if u.GetKind() == "CustomResourceDefinition" {
		if err := unstructured.SetNestedField(u.Object, bundle, "spec", "conversion", "webhook", "clientConfig", "caBundle"); err != nil {
			return "", err
		}
	} else {
		webhooks, _, _ := unstructured.NestedSlice(u.Object, "webhooks")
		for i := range webhooks {
			w, _ := webhooks[i].(map[string]any)
			if err := unstructured.SetNestedField(w, bundle, "clientConfig", "caBundle"); err != nil {
				return "", err
			}
		}
		if err := unstructured.SetNestedSlice(u.Object, webhooks, "webhooks"); err != nil {
			return "", err
		}
	}
	if err := s.c.Update(ctx, u); err != nil {
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return "", nil
		}
		return "", fmt.Errorf("cert-manager stand-in: inject the CA of %s into %s %s: %w", u.GetAnnotations()[injectCAFrom], u.GetKind(), u.GetName(), err)
	}
	return u.GetResourceVersion(), nil
}
