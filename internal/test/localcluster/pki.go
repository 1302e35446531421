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

package localcluster

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// pki is the set of certificates and keys the control plane needs. They are
// created once and reused, so a kubeconfig written by an earlier run keeps
// working after a restart.
type pki struct {
	dir string
	// servingIPs are addresses the apiserver's certificate names beside
	// loopback (a node reaches it on its own address and the kubernetes
	// Service's).
	servingIPs []net.IP
}

func (p pki) path(name string) string { return filepath.Join(p.dir, name) }

func (p pki) caCert() string            { return p.path("ca.crt") }
func (p pki) caKey() string             { return p.path("ca.key") }
func (p pki) servingCert() string       { return p.path("apiserver.crt") }
func (p pki) servingKey() string        { return p.path("apiserver.key") }
func (p pki) adminCert() string         { return p.path("admin.crt") }
func (p pki) adminKey() string          { return p.path("admin.key") }
func (p pki) serviceAccountKey() string { return p.path("sa.key") }
func (p pki) serviceAccountPub() string { return p.path("sa.pub") }

// certificateLifetime is long because the directory is meant to be kept;
// the CA never leaves this machine.
const certificateLifetime = 10 * 365 * 24 * time.Hour

// ensure creates whatever is missing. Existing files are left alone.
func (p pki) ensure() error {
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		return err
	}
	if exists(p.caCert()) && exists(p.caKey()) && exists(p.servingCert()) && exists(p.servingKey()) &&
		exists(p.adminCert()) && exists(p.adminKey()) && exists(p.serviceAccountKey()) && exists(p.serviceAccountPub()) {
		return p.ensureServingIPs()
	}

	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	caTemplate := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "runtime-sdk-controller local CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(certificateLifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, caKey.Public(), caKey)
	if err != nil {
		return err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}
	if err := writeCert(p.caCert(), caDER); err != nil {
		return err
	}
	if err := writeKey(p.caKey(), caKey); err != nil {
		return err
	}

	if err := p.issueServing(ca, caKey); err != nil {
		return err
	}
	// system:masters is bound to cluster-admin by the apiserver's bootstrap
	// policy, so the admin kubeconfig works with RBAC on.
	admin := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "admin", Organization: []string{"system:masters"}},
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if err := p.issue(ca, caKey, admin, p.adminCert(), p.adminKey()); err != nil {
		return err
	}

	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	if err := writeKey(p.serviceAccountKey(), saKey); err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(saKey.Public())
	if err != nil {
		return err
	}
	return writePEM(p.serviceAccountPub(), "PUBLIC KEY", pub, 0o644)
}

func (p pki) issueServing(ca *x509.Certificate, caKey crypto.Signer) error {
	serving := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		DNSNames:     []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		IPAddresses:  append([]net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, p.servingIPs...),
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	return p.issue(ca, caKey, serving, p.servingCert(), p.servingKey())
}

// ensureServingIPs reissues a kept serving certificate that lacks one of
// servingIPs, so a directory first used without them still serves a node.
func (p pki) ensureServingIPs() error {
	cert, err := readCert(p.servingCert())
	if err != nil {
		return err
	}
	missing := false
	for _, want := range p.servingIPs {
		if !slices.ContainsFunc(cert.IPAddresses, want.Equal) {
			missing = true
		}
	}
	if !missing {
		return nil
	}
	ca, caKey, err := p.loadCA()
	if err != nil {
		return err
	}
	return p.issueServing(ca, caKey)
}

// loadCA reads the CA's certificate and key.
func (p pki) loadCA() (*x509.Certificate, crypto.Signer, error) {
	ca, err := readCert(p.caCert())
	if err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile(p.caKey())
	if err != nil {
		return nil, nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, nil, fmt.Errorf("%s holds no PEM key", p.caKey())
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p.caKey(), err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, nil, fmt.Errorf("%s is not a signing key", p.caKey())
	}
	return ca, signer, nil
}

func readCert(path string) (*x509.Certificate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cert, nil
}

func (p pki) issue(ca *x509.Certificate, caKey crypto.Signer, template *x509.Certificate, certPath, keyPath string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	template.NotBefore = time.Now().Add(-time.Hour)
	template.NotAfter = time.Now().Add(certificateLifetime)
	template.KeyUsage = x509.KeyUsageDigitalSignature
	if template.SerialNumber == nil {
		template.SerialNumber = serial()
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, key.Public(), caKey)
	if err != nil {
		return err
	}
	if err := writeCert(certPath, der); err != nil {
		return err
	}
	return writeKey(keyPath, key)
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
	if err != nil {
		// crypto/rand does not fail on Linux; a fixed serial is still valid.
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}

func writeCert(path string, der []byte) error {
	return writePEM(path, "CERTIFICATE", der, 0o644)
}

func writeKey(path string, key crypto.Signer) error {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	return writePEM(path, "PRIVATE KEY", der, 0o600)
}

func writePEM(path, blockType string, der []byte, mode os.FileMode) error {
	data := pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der})
	if err := os.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist)
}
