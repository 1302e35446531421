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
	"crypto/sha256"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

const (
	// errorBodyBytes is how much of the body of an answer other than HTTP
	// 200 is read: its status alone fails the call, and a condition shows
	// only a snippet of the body, whatever its size.
	errorBodyBytes = 4 << 10
	// defaultServicePort is the port of a service reference without one.
	defaultServicePort = 443
	// idleConnTimeout closes a pooled connection nobody reused for that long.
	idleConnTimeout = 90 * time.Second
	// transportTTL drops the transport of a CA bundle no call used for that
	// long. By then its idle connections have timed out, so nothing worth
	// keeping goes; without it, every CA ever rotated out would keep one.
	transportTTL = 2 * idleConnTimeout
)

// Options configure a Client.
type Options struct {
	// ClientCertFile and ClientKeyFile, when both set, are presented to
	// extensions that ask for a client certificate. They are read again
	// whenever they change while Start runs, so a renewed certificate is
	// used without a restart.
	ClientCertFile, ClientKeyFile string
	// MaxResponseBytes bounds the body of an HTTP 200 answer; a larger one
	// fails the call whatever the handler's failure policy. Zero means
	// userfacing.DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// DiscoveryTimeout bounds Discovery calls; zero means
	// userfacing.DefaultCallTimeout.
	DiscoveryTimeout time.Duration
	// Observe, when set, is told of every call attempted (once the
	// connection pool of its CA bundle exists), as it ends.
	Observe func(CallRecord)
}

// CallRecord is what Observe learns of one call.
type CallRecord struct {
	// Host is the extension's host and port.
	Host string
	Hook runtimecatalog.GroupVersionHook
	// HTTPStatus is the answer's status code; zero when none came back.
	HTTPStatus int
	// ResponseStatus is the answer's status: Success or Failure, empty
	// when the answer was no response of the hook's kind or said anything
	// else (an extension's words never become a label value).
	ResponseStatus runtimehooksv1.ResponseStatus
	Duration       time.Duration
}

// Client calls Runtime Extension hooks. It is safe for concurrent use and
// keeps one connection pool per distinct CA bundle in use.
type Client struct {
	catalog *runtimecatalog.Catalog
	// clientCert holds the client certificate as last read from its files;
	// nil without one.
	clientCert       *certwatcher.CertWatcher
	maxResponseBytes int64
	discoveryTimeout time.Duration
	observe          func(CallRecord)

	mu         sync.Mutex
	transports map[[sha256.Size]byte]*pooledTransport
	now        func() time.Time
}

// New returns a Client. It fails when the client certificate cannot be
// loaded; Start keeps it current.
func New(opts Options) (*Client, error) {
	cat := runtimecatalog.New()
	if err := runtimehooksv1.AddToCatalog(cat); err != nil {
		return nil, fmt.Errorf("build hook catalog: %w", err)
	}
	c := &Client{
		catalog:          cat,
		maxResponseBytes: opts.MaxResponseBytes,
		discoveryTimeout: opts.DiscoveryTimeout,
		observe:          opts.Observe,
		transports:       map[[sha256.Size]byte]*pooledTransport{},
		now:              time.Now,
	}
	if c.discoveryTimeout <= 0 {
		c.discoveryTimeout = userfacing.DefaultCallTimeout
	}
	if c.maxResponseBytes <= 0 {
		c.maxResponseBytes = userfacing.DefaultMaxResponseBytes
	}
	switch {
	case opts.ClientCertFile != "" && opts.ClientKeyFile == "":
		return nil, fmt.Errorf("a client certificate needs both its certificate file and its key file: only the certificate file %s is given", opts.ClientCertFile)
	case opts.ClientCertFile == "" && opts.ClientKeyFile != "":
		return nil, fmt.Errorf("a client certificate needs both its certificate file and its key file: only the key file %s is given", opts.ClientKeyFile)
	}
	if opts.ClientCertFile != "" {
		watcher, err := certwatcher.New(opts.ClientCertFile, opts.ClientKeyFile)
		if err != nil {
			return nil, fmt.Errorf("load client certificate %s: %w", opts.ClientCertFile, err)
		}
		// Runs once now, on an empty pool, and after every change.
		watcher.RegisterCallback(func(tls.Certificate) { c.dropTransports() })
		c.clientCert = watcher
	}
	return c, nil
}

// Start watches the client certificate's files until ctx ends, so that
// calls present the certificate they hold now. Without a client
// certificate it only waits for ctx.
func (c *Client) Start(ctx context.Context) error {
	if c.clientCert == nil {
		<-ctx.Done()
		return nil
	}
	return c.clientCert.Start(ctx)
}

// NeedLeaderElection is false: a standby must present a current
// certificate the moment it takes over.
func (c *Client) NeedLeaderElection() bool { return false }

// Catalog returns the hook catalog the client uses.
func (c *Client) Catalog() *runtimecatalog.Catalog { return c.catalog }

// Call sends request to one hook handler of the extension at config and
// decodes the answer into response. handlerName is the name the extension
// discovered (without the ExtensionConfig suffix), empty for Discovery.
// settings are the ExtensionConfig's spec.settings; the request's own
// settings win over them.
//
// An error is returned when the extension cannot be reached, TLS does not
// verify, the timeout passes, the answer is not HTTP 200, is too large, is
// not JSON, names another kind or apiVersion than the hook's, or does not
// say Success (a StatusError). FailurePolicyApplies tells which of these a
// handler's failure policy decides.
func (c *Client) Call(ctx context.Context, config runtimev1.ClientConfig, hook runtimecatalog.GroupVersionHook, handlerName string,
	timeout time.Duration, settings map[string]string, request runtime.Object, response runtimehooksv1.ResponseObject,
) error {
	target, body, responseGVK, err := c.buildRequest(config, hook, handlerName, settings, request)
	if err != nil {
		return err
	}
	if timeout <= 0 {
		timeout = userfacing.DefaultCallTimeout
	}
	// As Cluster API's client does, the call tells the extension its
	// timeout.
	query := target.Query()
	query.Set("timeout", timeout.String())
	target.RawQuery = query.Encode()
	started := time.Now()
	answer, err := c.roundTrip(ctx, config.CABundle, target, timeout, body)
	if err == nil {
		err = readAnswer(target, answer, responseGVK, response)
	}
	if c.observe != nil && !errors.As(err, new(noTransportError)) {
		c.observe(CallRecord{Host: target.Host, Hook: hook, HTTPStatus: answer.status, ResponseStatus: answeredStatus(err), Duration: time.Since(started)})
	}
	return err
}

// buildRequest resolves the hook's request and response kinds and the
// handler's URL, and encodes a copy of the request with the registration's
// settings under its own, leaving the caller's request as it was.
func (c *Client) buildRequest(config runtimev1.ClientConfig, hook runtimecatalog.GroupVersionHook, handlerName string,
	settings map[string]string, request runtime.Object,
) (*url.URL, []byte, schema.GroupVersionKind, error) {
	requestGVK, err := c.catalog.Request(hook)
	if err != nil {
		return nil, nil, schema.GroupVersionKind{}, fmt.Errorf("hook %s: %w", hook, err)
	}
	responseGVK, err := c.catalog.Response(hook)
	if err != nil {
		return nil, nil, schema.GroupVersionKind{}, fmt.Errorf("hook %s: %w", hook, err)
	}
	target, err := URL(config, runtimecatalog.GVHToPath(hook, handlerName))
	if err != nil {
		return nil, nil, schema.GroupVersionKind{}, err
	}
	// A copy is sent, as Cluster API's client sends one: the caller may
	// pass the same request to several handlers (CallAllExtensions does),
	// and one registration's settings must not reach another's extension.
	request = request.DeepCopyObject()
	request.GetObjectKind().SetGroupVersionKind(requestGVK)
	// Discovery's request carries no settings; every other request does.
	if withSettings, ok := request.(runtimehooksv1.RequestObject); ok {
		withSettings.SetSettings(MergeSettings(settings, withSettings.GetSettings()))
	}
	body, err := json.Marshal(request)
	if err != nil {
		return nil, nil, schema.GroupVersionKind{}, fmt.Errorf("encode %s: %w", requestGVK.Kind, err)
	}
	return target, body, responseGVK, nil
}
