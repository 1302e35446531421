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

package client

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
)

// clientCA issues client certificates, as the CA an mTLS extension trusts.
type clientCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newClientCA(t *testing.T) *clientCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "client CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &clientCA{cert: cert, key: key}
}

// issue writes a client certificate named commonName and its key to the
// two files, the way a certificate manager renews them in place.
func (ca *clientCA) issue(t *testing.T, commonName, certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: commonName},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca.cert, key.Public(), ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// mTLSExtension answers Discovery only to clients with a certificate of ca,
// and reports the name of the certificate each call showed and every
// connection that closes.
type mTLSExtension struct {
	url, caBundle string
	closed        chan struct{}

	mu     sync.Mutex
	shown  []string
	opened int
}

func startMTLSExtension(t *testing.T, ca *clientCA) *mTLSExtension {
	t.Helper()
	ext := &mTLSExtension{closed: make(chan struct{}, 16)}
	answer := discoveryAnswer()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ext.mu.Lock()
		ext.shown = append(ext.shown, r.TLS.PeerCertificates[0].Subject.CommonName)
		ext.mu.Unlock()
		answer(w, r)
	}))
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool, MinVersion: tls.VersionTLS12}
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		switch state {
		case http.StateNew:
			ext.mu.Lock()
			ext.opened++
			ext.mu.Unlock()
		case http.StateClosed:
			ext.closed <- struct{}{}
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ext.url = srv.URL
	ext.caBundle = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	return ext
}

// last returns the name of the certificate the last call showed and how
// many connections were opened.
func (e *mTLSExtension) last() (shown string, opened int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.shown) > 0 {
		shown = e.shown[len(e.shown)-1]
	}
	return shown, e.opened
}

func TestClient_PresentsTheClientCertificateItsFilesHoldNow(t *testing.T) {
	ca := newClientCA(t)
	ext := startMTLSExtension(t, ca)
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	ca.issue(t, "first", certFile, keyFile)

	c := newClient(t, Options{ClientCertFile: certFile, ClientKeyFile: keyFile})
	ctx, cancel := context.WithCancel(context.Background())
	watching := make(chan error, 1)
	go func() { watching <- c.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-watching; err != nil {
			t.Errorf("Start: %v", err)
		}
	})
	discover := func() error {
		_, err := c.Discover(context.Background(), extensionAt(ext.url, []byte(ext.caBundle)))
		return err
	}

	for range 2 {
		if err := discover(); err != nil {
			t.Fatalf("Discover with the first certificate: %v", err)
		}
	}
	if shown, opened := ext.last(); shown != "first" || opened != 1 {
		t.Fatalf("the extension was shown %q over %d connections, want \"first\" over 1", shown, opened)
	}

	ca.issue(t, "second", certFile, keyFile)
	polltest.Eventually(t, 30*time.Second, "calls show the renewed certificate", func() (bool, string) {
		if err := discover(); err != nil {
			return false, err.Error()
		}
		shown, _ := ext.last()
		return shown == "second", "shown " + shown
	})
	select {
	case <-ext.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the idle connection that showed the old certificate was not closed")
	}
	if _, opened := ext.last(); opened != 2 {
		t.Errorf("%d connections opened, want 2: one per certificate", opened)
	}
}

func TestClient_WithoutAClientCertificateAnMTLSExtensionRefusesTheCall(t *testing.T) {
	ext := startMTLSExtension(t, newClientCA(t))
	_, err := newClient(t, Options{}).Discover(context.Background(), extensionAt(ext.url, []byte(ext.caBundle)))
	if err == nil {
		t.Fatal("an extension that requires a client certificate answered a client without one")
	}
	// TLS 1.3: the server refuses the empty certificate with the
	// certificate_required alert, which the client reads as the handshake's
	// remote error. It is a call that got no answer, so failurePolicy
	// decides it.
	var refused *net.OpError
	if !errors.As(err, &refused) || refused.Op != "remote error" || refused.Err.Error() != "tls: certificate required" {
		t.Errorf("got %v, want the extension's TLS alert: certificate required", err)
	}
	if !FailurePolicyApplies(err) {
		t.Errorf("failurePolicy does not decide the refusal: %v", err)
	}
	if shown, _ := ext.last(); shown != "" {
		t.Errorf("the extension saw a certificate %q", shown)
	}
}

func TestNew_RefusesHalfAClientCertificate(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	otherCertFile, otherKeyFile := filepath.Join(dir, "other.crt"), filepath.Join(dir, "other.key")
	ca := newClientCA(t)
	ca.issue(t, "client", certFile, keyFile)
	ca.issue(t, "other", otherCertFile, otherKeyFile)
	const half = "a client certificate needs both its certificate file and its key file"
	tests := []struct {
		name string
		opts Options
		want string // the whole error
	}{
		{"cert only", Options{ClientCertFile: certFile}, half + ": only the certificate file " + certFile + " is given"},
		{"key only", Options{ClientKeyFile: keyFile}, half + ": only the key file " + keyFile + " is given"},
		{"a key where the certificate goes", Options{ClientCertFile: keyFile, ClientKeyFile: keyFile},
			"load client certificate " + keyFile + ": tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched"},
		{"another certificate's key", Options{ClientCertFile: certFile, ClientKeyFile: otherKeyFile},
			"load client certificate " + certFile + ": tls: private key does not match public key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.opts)
			if err == nil {
				t.Fatal("New accepted it")
			}
			if err.Error() != tt.want {
				t.Errorf("got %q, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "PRIVATE KEY-----") {
				t.Errorf("the error quotes the key: %v", err)
			}
		})
	}
}
