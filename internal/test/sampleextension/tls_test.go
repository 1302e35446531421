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

package sampleextension_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

func TestSelfSignedCertificate_ServingCertificateVerifiesForEachHostAgainstTheCA(t *testing.T) {
	hosts := []string{"localhost", "127.0.0.1", "::1", "sample-extension.test-system.svc"}
	caPEM, certPEM, keyPEM, err := sampleextension.SelfSignedCertificate(hosts, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ca := parseCertificate(t, caPEM)
	leaf := parseCertificate(t, certPEM)

	if !ca.IsCA || ca.KeyUsage&x509.KeyUsageCertSign == 0 {
		t.Errorf("CA: IsCA %t, key usage %b; want a CA that signs certificates", ca.IsCA, ca.KeyUsage)
	}
	if leaf.IsCA || len(leaf.ExtKeyUsage) != 1 || leaf.ExtKeyUsage[0] != x509.ExtKeyUsageServerAuth {
		t.Errorf("leaf: IsCA %t, extended key usage %v; want a server certificate", leaf.IsCA, leaf.ExtKeyUsage)
	}
	if key, ok := leaf.PublicKey.(*ecdsa.PublicKey); !ok || key.Curve != elliptic.P256() {
		t.Errorf("leaf key %T, want ECDSA P-256", leaf.PublicKey)
	}
	if leaf.NotAfter.After(time.Now().Add(time.Hour)) || leaf.NotAfter.Before(time.Now().Add(59*time.Minute)) {
		t.Errorf("leaf expires %s, want in an hour", leaf.NotAfter)
	}
	if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
		t.Errorf("certificate and key do not pair: %v", err)
	}

	roots := x509.NewCertPool()
	roots.AddCert(ca)
	tests := []struct {
		host   string
		wantOK bool
	}{
		{host: "localhost", wantOK: true},
		{host: "127.0.0.1", wantOK: true},
		{host: "::1", wantOK: true},
		{host: "sample-extension.test-system.svc", wantOK: true},
		{host: "example.com", wantOK: false},
		{host: "127.0.0.2", wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			_, err := leaf.Verify(x509.VerifyOptions{
				Roots:     roots,
				DNSName:   tt.host,
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			})
			if (err == nil) != tt.wantOK {
				t.Errorf("Verify for %s: %v, want ok %t", tt.host, err, tt.wantOK)
			}
		})
	}
}

func TestSelfSignedCertificate_RejectsBadInput(t *testing.T) {
	tests := []struct {
		name     string
		hosts    []string
		validFor time.Duration
		wantErr  string
	}{
		{name: "no hosts", hosts: nil, validFor: time.Hour, wantErr: "no hosts"},
		{name: "empty host", hosts: []string{"localhost", " "}, validFor: time.Hour, wantErr: "empty host"},
		{name: "no validity", hosts: []string{"localhost"}, validFor: 0, wantErr: "not positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, _, err := sampleextension.SelfSignedCertificate(tt.hosts, tt.validFor)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want one mentioning %q", err, tt.wantErr)
			}
		})
	}
}

func TestStartTLS_OnlyClientsThatTrustTheCAConnect(t *testing.T) {
	url, caPEM, stop, err := sampleextension.StartTLS(sampleextension.New(sampleextension.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	if !strings.HasPrefix(url, "https://127.0.0.1:") {
		t.Errorf("URL %q, want https://127.0.0.1:PORT", url)
	}
	otherCA, _, _, err := sampleextension.SelfSignedCertificate([]string{"127.0.0.1"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	systemRoots, err := x509.SystemCertPool()
	if err != nil {
		systemRoots = x509.NewCertPool()
	}
	clientConfig, err := sampleextension.ClientTLSConfig(caPEM)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		config *tls.Config
		wantOK bool
	}{
		{name: "the generated CA", config: &tls.Config{RootCAs: poolOf(t, caPEM), MinVersion: tls.VersionTLS12}, wantOK: true},
		{name: "ClientTLSConfig", config: clientConfig, wantOK: true},
		{name: "system roots", config: &tls.Config{RootCAs: systemRoots, MinVersion: tls.VersionTLS12}, wantOK: false},
		{name: "another CA", config: &tls.Config{RootCAs: poolOf(t, otherCA), MinVersion: tls.VersionTLS12}, wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			transport := &http.Transport{TLSClientConfig: tt.config}
			defer transport.CloseIdleConnections()
			client := &http.Client{Transport: transport}
			resp, err := post(client, url, discoveryPath, []byte("{}"))
			if !tt.wantOK {
				if unknown := (x509.UnknownAuthorityError{}); !errors.As(err, &unknown) {
					t.Errorf("error %v, want an unknown authority", err)
				}
				return
			}
			if err != nil || resp.status != http.StatusOK {
				t.Fatalf("HTTP %d, error %v; want 200", resp.status, err)
			}
		})
	}
}

func TestStartTLS_DeclinesHTTP2(t *testing.T) {
	url, caPEM, stop, err := sampleextension.StartTLS(sampleextension.New(sampleextension.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	// ForceAttemptHTTP2 offers h2, which the server must decline.
	transport := &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: poolOf(t, caPEM), MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2: true,
	}
	defer transport.CloseIdleConnections()
	resp, err := (&http.Client{Transport: transport}).Post(url+discoveryPath, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 1 || resp.TLS == nil {
		t.Errorf("protocol %s, TLS %t; want HTTP/1.x over TLS", resp.Proto, resp.TLS != nil)
	}
}

func TestTLSConfigs_RejectUnusablePEM(t *testing.T) {
	caPEM, certPEM, _, err := sampleextension.SelfSignedCertificate([]string{"localhost"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	_, _, otherKeyPEM, err := sampleextension.SelfSignedCertificate([]string{"localhost"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sampleextension.ServingTLSConfig(certPEM, otherKeyPEM); err == nil {
		t.Error("ServingTLSConfig accepted a key of another certificate")
	}
	if _, err := sampleextension.ClientTLSConfig([]byte("not PEM")); err == nil {
		t.Error("ClientTLSConfig accepted a PEM without certificates")
	}
	if _, err := sampleextension.ClientTLSConfig(caPEM); err != nil {
		t.Errorf("ClientTLSConfig(CA) = %v", err)
	}
}

func parseCertificate(t *testing.T, certPEM []byte) *x509.Certificate {
	t.Helper()
	block, rest := pem.Decode(certPEM)
	if block == nil || block.Type != "CERTIFICATE" || len(strings.TrimSpace(string(rest))) != 0 {
		t.Fatalf("want exactly one CERTIFICATE block in:\n%s", certPEM)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

func poolOf(t *testing.T, caPEM []byte) *x509.CertPool {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatalf("no certificate in:\n%s", caPEM)
	}
	return pool
}
