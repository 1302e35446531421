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
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/hookpath"
)

// maxBodyBytes bounds a request's body: a GeneratePatches request carries
// every template of one Cluster, well under this.
const maxBodyBytes = 32 << 20

// Options configure a Proxy.
type Options struct {
	// Upstream is the extension's base URL (https) and UpstreamCA the CA
	// its serving certificate is signed by.
	Upstream   string
	UpstreamCA []byte
	// Latency is added to every request; ByHook overrides it for the hooks
	// it names (hookpath.Hook's names, such as generatepatches).
	Latency time.Duration
	ByHook  map[string]time.Duration
}

// Proxy is a running slow extension.
type Proxy struct {
	// URL is where it serves (https://127.0.0.1:port) and CA the CA its
	// certificate is signed by: what an ExtensionConfig's clientConfig
	// names instead of the extension's.
	URL string
	CA  []byte

	opts   Options
	server *http.Server
	proxy  *httputil.ReverseProxy
	served chan error

	closeOnce sync.Once
	closeErr  error

	mu    sync.Mutex
	stats Stats
}

// Stats are the requests served so far, by hook.
type Stats struct {
	// Requests counts each request, answered or not.
	Requests map[string]int `json:"requests"`
	// Failed counts those the proxy answered itself: 502 Bad Gateway when
	// the extension could not be reached or verified, 413 when the body
	// was over its bound or could not be read.
	Failed map[string]int `json:"failed,omitempty"`
	// BusySeconds is the time from each request's arrival to its answer,
	// added up: the seconds a one-request-at-a-time extension would have
	// been busy with them.
	BusySeconds map[string]float64 `json:"busySeconds"`
}

// Start serves the proxy on a free port of 127.0.0.1.
func Start(opts Options) (*Proxy, error) {
	upstream, err := url.Parse(opts.Upstream)
	if err != nil || upstream.Scheme != "https" || upstream.Host == "" {
		return nil, fmt.Errorf("slow extension: upstream %q is not an https URL", opts.Upstream)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(opts.UpstreamCA) {
		return nil, errors.New("slow extension: the upstream CA holds no PEM certificate")
	}
	caPEM, certPEM, keyPEM, err := sampleextension.SelfSignedCertificate([]string{"127.0.0.1", "localhost"}, 24*time.Hour)
	if err != nil {
		return nil, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	listener, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		return nil, err
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	// The managers call with up to 100 workers each.
	transport.MaxIdleConnsPerHost = 200
	p := &Proxy{
		URL:    "https://" + listener.Addr().String(),
		CA:     caPEM,
		opts:   opts,
		served: make(chan error, 1),
		stats:  Stats{Requests: map[string]int{}, Failed: map[string]int{}, BusySeconds: map[string]float64{}},
	}
	p.proxy = &httputil.ReverseProxy{
		Rewrite:   func(r *httputil.ProxyRequest) { r.SetURL(upstream) },
		Transport: transport,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			p.fail(hookpath.Hook(r.URL.Path))
			http.Error(w, "slow extension: "+err.Error(), http.StatusBadGateway)
		},
	}
	p.server = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go func() { p.served <- p.server.Serve(listener) }()
	return p, nil
}

// ServeHTTP reads the request, holds it for its hook's latency, then
// passes it on. The body is read first, as an extension would before it
// works on it: only then does the server watch the connection, so that a
// caller who gives up while the request is held is answered by no one.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	hook := hookpath.Hook(r.URL.Path)
	defer func() { p.record(hook, time.Since(arrived)) }()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		p.fail(hook)
		http.Error(w, "slow extension: "+err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	if err := hold(r.Context(), p.latency(hook)); err != nil {
		return
	}
	p.proxy.ServeHTTP(w, r)
}

// latency is what hook's requests wait.
func (p *Proxy) latency(hook string) time.Duration {
	if d, ok := p.opts.ByHook[hook]; ok {
		return d
	}
	return p.opts.Latency
}

// record counts one request of hook that took busy.
func (p *Proxy) record(hook string, busy time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats.Requests[hook]++
	p.stats.BusySeconds[hook] += busy.Seconds()
}

// hold waits d, or until ctx ends.
func hold(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fail counts one request of hook the proxy answered itself.
func (p *Proxy) fail(hook string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats.Failed[hook]++
}

// Stats returns a copy of the counts so far.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Stats{Requests: maps.Clone(p.stats.Requests), Failed: maps.Clone(p.stats.Failed), BusySeconds: maps.Clone(p.stats.BusySeconds)}
}

// Close stops serving, ending requests in flight. Calling it again does
// nothing.
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() {
		p.closeErr = p.server.Close()
		if served := <-p.served; !errors.Is(served, http.ErrServerClosed) && !errors.Is(served, net.ErrClosed) {
			p.closeErr = errors.Join(p.closeErr, served)
		}
	})
	return p.closeErr
}
