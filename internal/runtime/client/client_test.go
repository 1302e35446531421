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
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/utils/ptr"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

const hooksAPIVersion = "hooks.runtime.cluster.x-k8s.io/v1alpha1"

// tlsServer starts a real HTTPS server and returns its URL and the PEM of
// the certificate that signs it, for use as a caBundle.
// Every server gets its own freshly generated CA.
func tlsServer(t *testing.T, handler http.HandlerFunc) (string, []byte) {
	t.Helper()
	url, ca, stop, err := sampleextension.StartTLS(handler)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return url, ca
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func discoveryAnswer(handlers ...runtimehooksv1.ExtensionHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery" || r.Method != http.MethodPost {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		writeJSON(w, map[string]any{
			"apiVersion": hooksAPIVersion, "kind": "DiscoveryResponse", "status": "Success", "handlers": handlers,
		})
	}
}

func newClient(t *testing.T, opts Options) *Client {
	t.Helper()
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func extensionAt(url string, ca []byte) *runtimev1.ExtensionConfig {
	ext := &runtimev1.ExtensionConfig{}
	ext.Name = "ext"
	ext.Spec.ClientConfig = runtimev1.ClientConfig{URL: url, CABundle: ca}
	return ext
}

// Handlers come back defaulted and under their full names, the one place
// a full name is made.
func TestDiscover_DefaultsAndReturnsHandlers(t *testing.T) {
	url, ca := tlsServer(t, discoveryAnswer(
		runtimehooksv1.ExtensionHandler{Name: "discover", RequestHook: runtimehooksv1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "DiscoverVariables"}},
		runtimehooksv1.ExtensionHandler{Name: "patch", RequestHook: runtimehooksv1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "GeneratePatches"},
			TimeoutSeconds: ptr.To[int32](3), FailurePolicy: ptr.To(runtimehooksv1.FailurePolicyIgnore)},
	))
	handlers, err := newClient(t, Options{}).Discover(context.Background(), extensionAt(url, ca))
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	want := []runtimev1.ExtensionHandler{
		{Name: "discover.ext", RequestHook: runtimev1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "DiscoverVariables"}, TimeoutSeconds: 10, FailurePolicy: runtimev1.FailurePolicyFail},
		{Name: "patch.ext", RequestHook: runtimev1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "GeneratePatches"}, TimeoutSeconds: 3, FailurePolicy: runtimev1.FailurePolicyIgnore},
	}
	if len(handlers) != len(want) {
		t.Fatalf("got %d handlers, want %d", len(handlers), len(want))
	}
	for i := range want {
		if handlers[i] != want[i] {
			t.Errorf("handler %d = %+v, want %+v", i, handlers[i], want[i])
		}
	}
}

func TestCall_FailuresNameTheirCause(t *testing.T) {
	okDiscovery := discoveryAnswer()
	goodURL, goodCA := tlsServer(t, okDiscovery)
	_, otherCA := tlsServer(t, okDiscovery)

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := "https://" + closed.Addr().String()
	closed.Close()

	serve := func(h http.HandlerFunc) (string, []byte) { return tlsServer(t, h) }
	url500, ca500 := serve(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) })
	urlHTML, caHTML := serve(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>hello</html>")) })
	urlBig, caBig := serve(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"apiVersion":"` + hooksAPIVersion + `","kind":"DiscoveryResponse","status":"Success","message":"`))
		_, _ = w.Write([]byte(strings.Repeat("x", 4096)))
		_, _ = w.Write([]byte(`"}`))
	})
	urlKind, caKind := serve(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"apiVersion": hooksAPIVersion, "kind": "GeneratePatchesResponse", "status": "Success"})
	})
	urlVersion, caVersion := serve(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"apiVersion": "hooks.runtime.cluster.x-k8s.io/v1beta9", "kind": "DiscoveryResponse", "status": "Success"})
	})
	urlFailure, caFailure := serve(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"apiVersion": hooksAPIVersion, "kind": "DiscoveryResponse", "status": "Failure", "message": "not today"})
	})
	urlRedirect, caRedirect := serve(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://elsewhere.example/", http.StatusTemporaryRedirect)
	})
	urlSlow, caSlow := serve(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	urlDrop, caDrop := serve(func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	urlDot, caDot := serve(discoveryAnswer(runtimehooksv1.ExtensionHandler{Name: "has.dot", RequestHook: runtimehooksv1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "DiscoverVariables"}}))
	urlHook, caHook := serve(discoveryAnswer(runtimehooksv1.ExtensionHandler{Name: "mystery", RequestHook: runtimehooksv1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "MakeCoffee"}}))
	urlTimeout, caTimeout := serve(discoveryAnswer(runtimehooksv1.ExtensionHandler{Name: "slow", TimeoutSeconds: ptr.To[int32](31), RequestHook: runtimehooksv1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "DiscoverVariables"}}))

	tests := []struct {
		name    string
		config  runtimev1.ClientConfig
		opts    Options
		timeout time.Duration
		want    []string
	}{
		{name: "wrong CA", config: runtimev1.ClientConfig{URL: goodURL, CABundle: otherCA}, want: []string{"TLS", "not signed by the CA bundle"}},
		{name: "no CA uses system roots", config: runtimev1.ClientConfig{URL: goodURL}, want: []string{"TLS", "not signed"}},
		{name: "CA bundle without PEM", config: runtimev1.ClientConfig{URL: goodURL, CABundle: []byte("not pem")}, want: []string{"caBundle holds no PEM"}},
		{name: "unreachable", config: runtimev1.ClientConfig{URL: unreachable, CABundle: goodCA}, want: []string{"unreachable", "connection refused"}},
		{name: "timeout", config: runtimev1.ClientConfig{URL: urlSlow, CABundle: caSlow}, timeout: 300 * time.Millisecond, want: []string{"did not answer within 300ms"}},
		{name: "dropped connection", config: runtimev1.ClientConfig{URL: urlDrop, CABundle: caDrop}, want: []string{"closed the connection"}},
		{name: "HTTP 500", config: runtimev1.ClientConfig{URL: url500, CABundle: ca500}, want: []string{"HTTP 500", "boom"}},
		{name: "not JSON", config: runtimev1.ClientConfig{URL: urlHTML, CABundle: caHTML}, want: []string{"not a JSON object", "<html>"}},
		{name: "body over the bound", config: runtimev1.ClientConfig{URL: urlBig, CABundle: caBig}, opts: Options{MaxResponseBytes: 1024}, want: []string{"larger than 1024 bytes"}},
		{name: "wrong kind", config: runtimev1.ClientConfig{URL: urlKind, CABundle: caKind}, want: []string{"answered a GeneratePatchesResponse where a DiscoveryResponse was expected"}},
		{name: "wrong apiVersion", config: runtimev1.ClientConfig{URL: urlVersion, CABundle: caVersion}, want: []string{"v1beta9", `where "` + hooksAPIVersion + `" was expected`}},
		{name: "status Failure", config: runtimev1.ClientConfig{URL: urlFailure, CABundle: caFailure}, want: []string{`status "Failure"`, "not today"}},
		{name: "redirect", config: runtimev1.ClientConfig{URL: urlRedirect, CABundle: caRedirect}, want: []string{"HTTP 307", "redirects are refused"}},
		{name: "handler name with a dot", config: runtimev1.ClientConfig{URL: urlDot, CABundle: caDot}, want: []string{`handler "has.dot"`, "must not contain a dot"}},
		{name: "unknown hook", config: runtimev1.ClientConfig{URL: urlHook, CABundle: caHook}, want: []string{`handler "mystery"`, "unknown hook", "MakeCoffee"}},
		{name: "timeout out of range", config: runtimev1.ClientConfig{URL: urlTimeout, CABundle: caTimeout}, want: []string{"timeoutSeconds 31 is outside 0..30"}},
		{name: "plain http url", config: runtimev1.ClientConfig{URL: "http://127.0.0.1:1"}, want: []string{"must use https"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, tt.opts)
			var err error
			if tt.timeout > 0 {
				hook, _ := c.Catalog().GroupVersionHook(runtimehooksv1.Discovery)
				err = c.Call(context.Background(), tt.config, hook, "", tt.timeout, nil, &runtimehooksv1.DiscoveryRequest{}, &runtimehooksv1.DiscoveryResponse{})
			} else {
				ext := &runtimev1.ExtensionConfig{Spec: runtimev1.ExtensionConfigSpec{ClientConfig: tt.config}}
				_, err = c.Discover(context.Background(), ext)
			}
			if err == nil {
				t.Fatal("expected an error")
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "BEGIN CERTIFICATE") {
				t.Errorf("error leaks CA data: %q", err)
			}
		})
	}
}

func TestCall_RefusesTLSBelow12(t *testing.T) {
	srv := httptest.NewUnstartedServer(discoveryAnswer())
	srv.TLS = &tls.Config{MaxVersion: tls.VersionTLS11}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	_, err := newClient(t, Options{}).Discover(context.Background(), extensionAt(srv.URL, ca))
	if err == nil || !strings.Contains(err.Error(), "version") {
		t.Fatalf("a TLS 1.1 server was accepted or the error does not say why: %v", err)
	}
}

func TestCall_SendsMergedSettingsToTheHandlerPath(t *testing.T) {
	var gotPath atomic.Value
	var gotSettings atomic.Value
	url, ca := tlsServer(t, func(w http.ResponseWriter, r *http.Request) {
		gotPath.Store(r.URL.Path)
		req := &runtimehooksv1.DiscoverVariablesRequest{}
		if err := json.NewDecoder(r.Body).Decode(req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		gotSettings.Store(req.Settings)
		writeJSON(w, map[string]any{"apiVersion": hooksAPIVersion, "kind": "DiscoverVariablesResponse", "status": "Success"})
	})
	c := newClient(t, Options{})
	hook, err := c.Catalog().GroupVersionHook(runtimehooksv1.DiscoverVariables)
	if err != nil {
		t.Fatal(err)
	}
	req := &runtimehooksv1.DiscoverVariablesRequest{}
	req.Settings = map[string]string{"size": "large"}
	config := runtimev1.ClientConfig{URL: url + "/prefix", CABundle: ca}
	if err := c.Call(context.Background(), config, hook, "discover", time.Second,
		map[string]string{"size": "small", "zone": "a"}, req, &runtimehooksv1.DiscoverVariablesResponse{}); err != nil {
		t.Fatal(err)
	}
	if got := gotPath.Load(); got != "/prefix/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovervariables/discover" {
		t.Errorf("path = %v", got)
	}
	settings, _ := gotSettings.Load().(map[string]string)
	if settings["size"] != "large" || settings["zone"] != "a" || len(settings) != 2 {
		t.Errorf("settings = %v, want the request's size over the config's and the config's zone", settings)
	}
}

// As Cluster API's client, each call tells the extension its timeout in
// the query, and Observe hears of every call sent: its host, hook, HTTP
// status and response status, whether it succeeded or not.
func TestCall_SendsItsTimeoutAndIsObserved(t *testing.T) {
	var gotTimeout atomic.Value
	answerStatus := atomic.Int64{}
	answerStatus.Store(http.StatusOK)
	url, ca := tlsServer(t, func(w http.ResponseWriter, r *http.Request) {
		gotTimeout.Store(r.URL.Query().Get("timeout"))
		if code := int(answerStatus.Load()); code != http.StatusOK {
			http.Error(w, "down", code)
			return
		}
		writeJSON(w, map[string]any{"apiVersion": hooksAPIVersion, "kind": "DiscoverVariablesResponse", "status": "Failure", "message": "no"})
	})
	var seen []CallRecord
	c := newClient(t, Options{Observe: func(r CallRecord) { seen = append(seen, r) }})
	hook, err := c.Catalog().GroupVersionHook(runtimehooksv1.DiscoverVariables)
	if err != nil {
		t.Fatal(err)
	}
	config := runtimev1.ClientConfig{URL: url, CABundle: ca}
	call := func() error {
		return c.Call(context.Background(), config, hook, "discover", 7*time.Second, nil,
			&runtimehooksv1.DiscoverVariablesRequest{}, &runtimehooksv1.DiscoverVariablesResponse{})
	}
	if err := call(); err == nil {
		t.Fatal("a Failure answer was taken for a success")
	}
	if got := gotTimeout.Load(); got != "7s" {
		t.Errorf("the extension saw timeout %v, want 7s", got)
	}
	answerStatus.Store(http.StatusServiceUnavailable)
	_ = call()
	// A CA bundle no connection can be made with: nothing was attempted.
	if err := c.Call(context.Background(), runtimev1.ClientConfig{URL: url, CABundle: []byte("not PEM")}, hook, "discover", time.Second, nil,
		&runtimehooksv1.DiscoverVariablesRequest{}, &runtimehooksv1.DiscoverVariablesResponse{}); err == nil {
		t.Fatal("a CA bundle without a certificate was accepted")
	}
	host := strings.TrimPrefix(url, "https://")
	want := []CallRecord{
		{Host: host, Hook: hook, HTTPStatus: http.StatusOK, ResponseStatus: runtimehooksv1.ResponseStatusFailure},
		{Host: host, Hook: hook, HTTPStatus: http.StatusServiceUnavailable},
	}
	if len(seen) != len(want) {
		t.Fatalf("observed %d calls, want %d: %+v", len(seen), len(want), seen)
	}
	for i := range want {
		got := seen[i]
		if got.Duration <= 0 {
			t.Errorf("call %d: duration %s", i, got.Duration)
		}
		got.Duration = 0
		if got != want[i] {
			t.Errorf("call %d observed %+v, want %+v", i, got, want[i])
		}
	}
}

func TestURL(t *testing.T) {
	tests := []struct {
		name    string
		config  runtimev1.ClientConfig
		want    string
		wantErr string
	}{
		{name: "url with path", config: runtimev1.ClientConfig{URL: "https://ext.example:8443/base/"}, want: "https://ext.example:8443/base/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery"},
		{name: "service default port", config: runtimev1.ClientConfig{Service: runtimev1.ServiceReference{Namespace: "ns", Name: "svc"}}, want: "https://svc.ns.svc:443/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery"},
		{name: "service port and path", config: runtimev1.ClientConfig{Service: runtimev1.ServiceReference{Namespace: "ns", Name: "svc", Port: ptr.To[int32](9443), Path: "/x"}}, want: "https://svc.ns.svc:9443/x/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery"},
		{name: "both", config: runtimev1.ClientConfig{URL: "https://a", Service: runtimev1.ServiceReference{Namespace: "ns", Name: "svc"}}, wantErr: "both url and service"},
		{name: "neither", config: runtimev1.ClientConfig{}, wantErr: "neither url nor service"},
		{name: "service without name", config: runtimev1.ClientConfig{Service: runtimev1.ServiceReference{Namespace: "ns"}}, wantErr: "name and namespace"},
		{name: "query", config: runtimev1.ClientConfig{URL: "https://a/?x=1"}, wantErr: "query"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := URL(tt.config, "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tt.want {
				t.Errorf("URL = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestMergeSettings_RequestWins(t *testing.T) {
	got := MergeSettings(map[string]string{"a": "config", "b": "config"}, map[string]string{"b": "request", "c": "request"})
	want := map[string]string{"a": "config", "b": "request", "c": "request"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if MergeSettings(nil, nil) != nil {
		t.Error("no settings should stay nil")
	}
}

func TestCall_TimeoutCancelsTheRequestAtTheExtension(t *testing.T) {
	cancelled := make(chan struct{})
	url, ca := tlsServer(t, func(_ http.ResponseWriter, r *http.Request) {
		// net/http notices a closed connection only once the body is read.
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
		close(cancelled)
	})
	c := newClient(t, Options{})
	hook, _ := c.Catalog().GroupVersionHook(runtimehooksv1.Discovery)
	err := c.Call(context.Background(), runtimev1.ClientConfig{URL: url, CABundle: ca}, hook, "", 200*time.Millisecond,
		nil, &runtimehooksv1.DiscoveryRequest{}, &runtimehooksv1.DiscoveryResponse{})
	if err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("error = %v, want a timeout", err)
	}
	// The connection is closed, not left hanging: the extension's request
	// context ends soon after the client gives up.
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the extension's request was still running 10s after the client timed out")
	}
}

// hostileBody starts an extension that answers 200 with the start of a
// valid response of kind, then sends more of it (chunk, flushed) every
// interval until the request ends; a zero interval sends as fast as the
// connection takes it. ended is closed once the handler has returned, which
// it does only when its request context ends or a write fails, that is when
// the client has hung up.
func hostileBody(t *testing.T, kind string, chunk string, interval time.Duration) (url string, ca []byte, ended <-chan struct{}) {
	t.Helper()
	done := make(chan struct{})
	url, ca = tlsServer(t, func(w http.ResponseWriter, r *http.Request) {
		defer close(done)
		// net/http notices a closed connection only once the body is read.
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		flusher := w.(http.Flusher)
		if _, err := io.WriteString(w, `{"apiVersion":"`+hooksAPIVersion+`","kind":"`+kind+`","status":"Success","message":"`); err != nil {
			return
		}
		flusher.Flush()
		var tick <-chan time.Time
		if interval > 0 {
			ticker := time.NewTicker(interval)
			defer ticker.Stop()
			tick = ticker.C
		}
		for {
			if tick != nil {
				select {
				case <-r.Context().Done():
					return
				case <-tick:
				}
			} else if r.Context().Err() != nil {
				return
			}
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
			flusher.Flush()
		}
	})
	return url, ca, done
}

// waitClosed fails the test unless ended is closed within a generous bound:
// the extension's request must end once the client gives up.
func waitClosed(t *testing.T, ended <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatalf("the extension was still sending %s 10s after the client returned: the connection was not closed", what)
	}
}

func TestCall_EndlessBodyIsCutAtTheBound(t *testing.T) {
	url, ca, ended := hostileBody(t, "DiscoveryResponse", strings.Repeat("x", 512), 0)
	// A timeout far beyond the test's patience: only the bound may end it.
	c := newClient(t, Options{MaxResponseBytes: 64 << 10, DiscoveryTimeout: 10 * time.Minute})
	result := make(chan error, 1)
	go func() {
		_, err := c.Discover(context.Background(), extensionAt(url, ca))
		result <- err
	}()
	var err error
	select {
	case err = <-result:
	case <-time.After(10 * time.Second):
		t.Fatal("Discover was still reading an endless body after 10s")
	}
	if err == nil || !strings.Contains(err.Error(), "larger than 65536 bytes") {
		t.Fatalf("error = %v, want the body refused as larger than 65536 bytes", err)
	}
	waitClosed(t, ended, "an endless body")
}

func TestCall_TricklingBodyHitsTheTimeout(t *testing.T) {
	// One byte every 20ms stays far below the bound for the whole timeout.
	url, ca, ended := hostileBody(t, "DiscoverVariablesResponse", "x", 20*time.Millisecond)
	c := newClient(t, Options{})
	hook, err := c.Catalog().GroupVersionHook(runtimehooksv1.DiscoverVariables)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Call(context.Background(), runtimev1.ClientConfig{URL: url, CABundle: ca}, hook, "vars", 300*time.Millisecond,
		nil, &runtimehooksv1.DiscoverVariablesRequest{}, &runtimehooksv1.DiscoverVariablesResponse{})
	if err == nil || !strings.Contains(err.Error(), "did not answer within 300ms (timeout)") {
		t.Fatalf("error = %v, want the timeout error", err)
	}
	waitClosed(t, ended, "a trickling body")
}

func TestCall_RefusesRedirectsOnTheSameHost(t *testing.T) {
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			var followed atomic.Int64
			answer := discoveryAnswer()
			url, ca := tlsServer(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/moved/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery" {
					followed.Add(1)
					r.URL.Path = strings.TrimPrefix(r.URL.Path, "/moved")
					answer(w, r)
					return
				}
				// Same scheme, host and port: only the path moves.
				http.Redirect(w, r, "/moved"+r.URL.Path, code)
			})
			_, err := newClient(t, Options{}).Discover(context.Background(), extensionAt(url, ca))
			// The Location header is the extension's, and never reaches a
			// condition.
			if err == nil || !strings.Contains(err.Error(), "redirects are refused") || strings.Contains(err.Error(), "/moved/") {
				t.Fatalf("error = %v, want the redirect refused without its Location", err)
			}
			if n := followed.Load(); n != 0 {
				t.Errorf("the redirect was followed %d times", n)
			}
		})
	}
}

// connCountingServer starts an HTTPS server answering Discovery and reports
// every connection it opens and every one that closes.
func connCountingServer(t *testing.T) (url string, ca []byte, opened *atomic.Int64, closed <-chan struct{}) {
	t.Helper()
	srv := httptest.NewUnstartedServer(discoveryAnswer())
	opened = new(atomic.Int64)
	closedCh := make(chan struct{}, 16)
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		switch state {
		case http.StateNew:
			opened.Add(1)
		case http.StateClosed:
			closedCh <- struct{}{}
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), opened, closedCh
}

func TestClient_DropsTransportsOfCABundlesNoLongerUsed(t *testing.T) {
	c := newClient(t, Options{})
	now := time.Unix(1_700_000_000, 0)
	c.now = func() time.Time { return now }
	url, ca, opened, closed := connCountingServer(t)
	_, otherCA := tlsServer(t, discoveryAnswer())
	discover := func() {
		t.Helper()
		if _, err := c.Discover(context.Background(), extensionAt(url, ca)); err != nil {
			t.Fatal(err)
		}
	}
	otherTransport := func() *http.Transport {
		t.Helper()
		tr, err := c.transport(otherCA)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	pooled := func() int {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.transports)
	}

	discover()
	first := otherTransport()
	if n := pooled(); n != 2 {
		t.Fatalf("%d transports for two CA bundles", n)
	}

	// Used within the TTL: both stay, and the connection is reused.
	now = now.Add(transportTTL - time.Second)
	discover()
	if opened.Load() != 1 {
		t.Errorf("%d connections opened, want the first one reused", opened.Load())
	}
	if n := pooled(); n != 2 {
		t.Errorf("%d transports after a call within the TTL, want 2", n)
	}

	// The other CA's transport was last taken a TTL and a second ago,
	// the server's two seconds ago.
	now = now.Add(2 * time.Second)
	discover()
	if n := pooled(); n != 1 {
		t.Fatalf("%d transports, want the unused one dropped", n)
	}
	if again := otherTransport(); again == first {
		t.Error("a dropped CA bundle got its old transport back")
	}

	// Dropping a transport closes its idle connection.
	now = now.Add(transportTTL + time.Second)
	otherTransport()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the idle connection of a dropped transport was not closed")
	}
	if n := pooled(); n != 1 {
		t.Errorf("%d transports, want only the one just taken", n)
	}
}

// What an extension says reaches conditions tenants may read: a failure's
// body or message is cut to a short snippet with no control characters,
// however large and hostile.
func TestCall_WhatReachesAConditionIsShortAndPrintable(t *testing.T) {
	hostile := strings.Repeat("\x1b[31mred\x1b[0m\x00\x07\u200b", 1<<16) // about 1 MiB
	answers := map[string]http.HandlerFunc{
		"error body": func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(hostile))
		},
		"failure message": func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, map[string]any{"apiVersion": hooksAPIVersion, "kind": "DiscoveryResponse", "status": "Failure", "message": hostile})
		},
	}
	for name, answer := range answers {
		t.Run(name, func(t *testing.T) {
			url, ca := tlsServer(t, answer)
			c := newClient(t, Options{MaxResponseBytes: 4 << 20})
			_, err := c.Discover(context.Background(), extensionAt(url, ca))
			if err == nil {
				t.Fatal("a failing extension gave no error")
			}
			msg := err.Error()
			if len(msg) > 600 {
				t.Errorf("error is %d bytes long; want a few hundred at most", len(msg))
			}
			for _, r := range msg {
				if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u200b' {
					t.Fatalf("error holds control character %U: %q", r, msg)
				}
			}
		})
	}
}
