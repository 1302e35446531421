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

package slowextension

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

const (
	generatePatchesPath = "/hooks.runtime.cluster.x-k8s.io/v1alpha1/generatepatches/generate-patches.scale"
	discoveryPath       = "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery"
)

// echo is an HTTPS extension of the standard library's: it answers each
// request with its path and body, and counts them.
func echo(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var served atomic.Int32
	s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		body, _ := io.ReadAll(r.Body)
		_, _ = io.WriteString(w, r.URL.Path+" "+string(body))
	}))
	t.Cleanup(s.Close)
	return s, &served
}

func certificatePEM(s *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
}

func start(t *testing.T, opts Options) *Proxy {
	t.Helper()
	p, err := Start(opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// client trusts the proxy's CA only.
func client(t *testing.T, p *Proxy) *http.Client {
	t.Helper()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(p.CA) {
		t.Fatal("the proxy's CA holds no certificate")
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}}
}

func post(ctx context.Context, c *http.Client, url, body string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(got), err
}

func TestProxy_HoldsEachRequestForItsHooksLatencyAndCountsIt(t *testing.T) {
	upstream, served := echo(t)
	const slow = 200 * time.Millisecond
	p := start(t, Options{Upstream: upstream.URL, UpstreamCA: certificatePEM(upstream), ByHook: map[string]time.Duration{"generatepatches": slow}})
	c := client(t, p)

	for range 2 {
		began := time.Now()
		code, body, err := post(t.Context(), c, p.URL+generatePatchesPath, `{"kind":"GeneratePatchesRequest"}`)
		if err != nil || code != http.StatusOK {
			t.Fatalf("GeneratePatches through the proxy: %d %v", code, err)
		}
		if want := generatePatchesPath + ` {"kind":"GeneratePatchesRequest"}`; body != want {
			t.Errorf("answer %q, want the extension's %q", body, want)
		}
		if took := time.Since(began); took < slow {
			t.Errorf("GeneratePatches answered after %s, want at least its latency %s", took, slow)
		}
	}
	if code, _, err := post(t.Context(), c, p.URL+discoveryPath, ""); err != nil || code != http.StatusOK {
		t.Fatalf("Discovery through the proxy: %d %v", code, err)
	}

	stats := p.Stats()
	if stats.Requests["generatepatches"] != 2 || stats.Requests["discovery"] != 1 || len(stats.Requests) != 2 {
		t.Errorf("requests %v, want generatepatches 2 and discovery 1", stats.Requests)
	}
	if busy := stats.BusySeconds["generatepatches"]; busy < 2*slow.Seconds() {
		t.Errorf("busy with GeneratePatches %.3fs, want at least two latencies, %.3fs", busy, 2*slow.Seconds())
	}
	if busy := stats.BusySeconds["discovery"]; busy >= slow.Seconds() {
		t.Errorf("busy with Discovery %.3fs: a hook without latency of its own took the other hook's", busy)
	}
	if got := served.Load(); got != 3 {
		t.Errorf("the extension served %d requests, want 3", got)
	}
}

func TestProxy_VerifiesTheExtensionsCertificate(t *testing.T) {
	upstream, served := echo(t)
	// Every httptest server shares one certificate: another authority is
	// one of our own.
	otherCA, _, _, err := sampleextension.SelfSignedCertificate([]string{"127.0.0.1"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	p := start(t, Options{Upstream: upstream.URL, UpstreamCA: otherCA})

	code, _, err := post(t.Context(), client(t, p), p.URL+generatePatchesPath, "{}")
	if err != nil {
		t.Fatal(err)
	}
	if code != http.StatusBadGateway {
		t.Errorf("status %d through a proxy that does not trust the extension, want %d", code, http.StatusBadGateway)
	}
	if served.Load() != 0 {
		t.Error("the extension was called over TLS the proxy could not verify")
	}
	if stats := p.Stats(); stats.Requests["generatepatches"] != 1 || stats.Failed["generatepatches"] != 1 {
		t.Errorf("counted %v requests, %v failed, want the refused one in both", stats.Requests, stats.Failed)
	}
}

func TestProxy_PassesNoBodyOverItsBound(t *testing.T) {
	upstream, _ := echo(t)
	p := start(t, Options{Upstream: upstream.URL, UpstreamCA: certificatePEM(upstream)})

	code, body, err := post(t.Context(), client(t, p), p.URL+generatePatchesPath, strings.Repeat("x", maxBodyBytes+1))
	if err != nil {
		t.Fatal(err)
	}
	if code == http.StatusOK || bytes.Contains([]byte(body), []byte("xxxx")) {
		t.Errorf("a body over %d bytes went through: status %d", maxBodyBytes, code)
	}
	if got := p.Stats().Failed["generatepatches"]; got != 1 {
		t.Errorf("%d failed requests, want the one over the bound", got)
	}
}

func TestProxy_ARequestItsCallerGivesUpOnNeverReachesTheExtension(t *testing.T) {
	upstream, served := echo(t)
	// Held far longer than the caller waits or the poll below lasts: the
	// answer cannot reach the caller first on a loaded machine, and the
	// proxy is only done in time if it saw the caller leave.
	const latency = 10 * time.Minute
	p := start(t, Options{Upstream: upstream.URL, UpstreamCA: certificatePEM(upstream), Latency: latency})

	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, _, err := post(ctx, client(t, p), p.URL+generatePatchesPath, "{}"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call held for %s ended with %v, want the caller's deadline", latency, err)
	}
	// The request is counted once the proxy is done with it.
	polltest.Eventually(t, 5*time.Second, "the proxy is done with the request", func() (bool, string) {
		got := p.Stats().Requests["generatepatches"]
		return got == 1, fmt.Sprintf("%d requests counted", got)
	})
	if served.Load() != 0 {
		t.Error("the extension served a request whose caller had gone")
	}
}

func TestStart_RefusesWhatItCannotVerify(t *testing.T) {
	for name, opts := range map[string]Options{
		"plain http":      {Upstream: "http://127.0.0.1:1", UpstreamCA: []byte("x")},
		"no CA":           {Upstream: "https://127.0.0.1:1"},
		"not a URL":       {Upstream: "://", UpstreamCA: []byte("x")},
		"a CA not in PEM": {Upstream: "https://127.0.0.1:1", UpstreamCA: []byte("not pem")},
	} {
		if p, err := Start(opts); err == nil {
			_ = p.Close()
			t.Errorf("%s: Start succeeded, want an error", name)
		}
	}
}
