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
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// pooledTransport is the transport of one CA bundle and when a call last
// took it.
type pooledTransport struct {
	*http.Transport
	lastUsed time.Time
}

// dropTransports closes every pooled connection that is idle and forgets
// every transport, so that each later call opens a new connection and
// presents the certificate read last. A call in flight finishes on its old
// connection, which no later call can take: it closes after
// idleConnTimeout like any idle one.
func (c *Client) dropTransports() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, t := range c.transports {
		t.CloseIdleConnections()
		delete(c.transports, key)
	}
}

// roundTrip posts body to target over verified TLS within timeout, and
// reads the answer's body up to the bound, the timeout covering both.
func (c *Client) roundTrip(ctx context.Context, caBundle []byte, target *url.URL, timeout time.Duration, body []byte) (answer, error) {
	transport, err := c.transport(caBundle)
	if err != nil {
		return answer{}, noTransportError{err}
	}
	httpClient := &http.Client{
		Transport: transport,
		// A redirect could move the call to a host the CA bundle was never
		// meant to vouch for; extensions must answer where they are registered.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target.String(), bytes.NewReader(body))
	if err != nil {
		return answer{}, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")

	resp, err := httpClient.Do(req)
	if err != nil {
		return answer{}, failedCall{describeTransportError(ctx, target, timeout, err)}
	}
	defer resp.Body.Close()

	if resp.StatusCode != http.StatusOK {
		// The status fails the call; the body is only quoted, so a read cut
		// short, by the bound or the timeout, still quotes what came.
		data, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyBytes))
		return answer{status: resp.StatusCode, body: data}, nil
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxResponseBytes+1))
	// An extension that sends its headers and then trickles the body runs
	// into the timeout here, not in Do. Checked before err: the body cut at
	// the deadline can also read as a clean, truncated end.
	// The status line came: a body that fails still has its status code.
	headersOnly := answer{status: resp.StatusCode}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return headersOnly, failedCall{fmt.Errorf("%s did not answer within %s (timeout)", redact(target), timeout)}
	}
	if err != nil {
		return headersOnly, failedCall{fmt.Errorf("read response from %s: %w", redact(target), err)}
	}
	if int64(len(data)) > c.maxResponseBytes {
		// Not a failed call: an answer came, and dropping it under
		// failurePolicy Ignore would drop what it says (patches) silently.
		return headersOnly, fmt.Errorf("response from %s is larger than %d bytes: refused", redact(target), c.maxResponseBytes)
	}
	return answer{status: resp.StatusCode, body: data}, nil
}

// describeTransportError turns a failed round trip into a message that says
// which of the usual causes it was.
func describeTransportError(ctx context.Context, target *url.URL, timeout time.Duration, err error) error {
	where := redact(target)
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var recordHeader tls.RecordHeaderError
	var opErr *net.OpError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s did not answer within %s (timeout)", where, timeout)
	case errors.As(err, &unknownAuthority):
		return fmt.Errorf("TLS to %s failed: certificate not signed by the CA bundle (or system roots when the bundle is empty): %w", where, unknownAuthority)
	case errors.As(err, &hostname):
		return fmt.Errorf("TLS to %s failed: certificate is not valid for this host: %w", where, hostname)
	case errors.As(err, &invalid):
		return fmt.Errorf("TLS to %s failed: %w", where, invalid)
	case errors.As(err, &recordHeader):
		return fmt.Errorf("TLS to %s failed: the server does not speak TLS", where)
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return fmt.Errorf("%s is unreachable: %w", where, opErr.Err)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s closed the connection without an answer", where)
	default:
		return fmt.Errorf("call %s: %w", where, err)
	}
}

// transport returns the shared transport for a CA bundle, so that calls to
// one extension reuse connections. Transports no call took for transportTTL
// are dropped first, closing their idle connections: CA rotation and
// recreated ExtensionConfigs would otherwise grow the pool without bound.
func (c *Client) transport(caBundle []byte) (*http.Transport, error) {
	key := sha256.Sum256(caBundle)
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	for k, t := range c.transports {
		if now.Sub(t.lastUsed) > transportTTL {
			// A call still running on it finishes; its connection then
			// closes after idleConnTimeout like any idle one.
			t.CloseIdleConnections()
			delete(c.transports, k)
		}
	}
	if t, ok := c.transports[key]; ok {
		t.lastUsed = now
		return t.Transport, nil
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(caBundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caBundle) {
			return nil, errors.New("spec.clientConfig.caBundle holds no PEM certificate")
		}
		tlsConfig.RootCAs = pool
	}
	if c.clientCert != nil {
		tlsConfig.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			cert, err := c.clientCert.GetCertificate(nil)
			if cert == nil {
				// crypto/tls wants a certificate; an empty one sends none.
				return &tls.Certificate{}, err
			}
			return cert, err
		}
	}
	t := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: userfacing.DefaultCallTimeout,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     idleConnTimeout,
		ForceAttemptHTTP2:   true,
	}
	c.transports[key] = &pooledTransport{Transport: t, lastUsed: now}
	return t, nil
}
