package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
)

const (
	// DefaultTimeout bounds a call whose handler sets no timeout, and every
	// Discovery call, as Cluster API does.
	DefaultTimeout = time.Duration(runtimehooksv1.DefaultHandlersTimeoutSeconds) * time.Second
	// DefaultMaxResponseBytes bounds the body of an HTTP 200 answer.
	// Cluster API's server library reads requests of up to 20 MiB, and the
	// largest answer such a request can call for, a GeneratePatches patch
	// replacing every object it carries, is as large again in base64
	// (patches are bytes), 4/3 of it: under 27 MiB. 32 MiB holds that.
	DefaultMaxResponseBytes = 32 << 20
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
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// DiscoveryTimeout bounds Discovery calls; zero means DefaultTimeout.
	DiscoveryTimeout time.Duration
	// Observe, when set, is told of every call attempted (once the
	// connection pool of its CA bundle exists), as it ends.
	Observe func(CallRecord)
}

// CallRecord is what Observe learns of one call.
type CallRecord struct {
	// Host is the extension's host and port.
	Host string
	Hook catalog.GroupVersionHook
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
	catalog *catalog.Catalog
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

// pooledTransport is the transport of one CA bundle and when a call last
// took it.
type pooledTransport struct {
	*http.Transport
	lastUsed time.Time
}

// New returns a Client. It fails when the client certificate cannot be
// loaded; Start keeps it current.
func New(opts Options) (*Client, error) {
	cat := catalog.New()
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
		c.discoveryTimeout = DefaultTimeout
	}
	if c.maxResponseBytes <= 0 {
		c.maxResponseBytes = DefaultMaxResponseBytes
	}
	if (opts.ClientCertFile == "") != (opts.ClientKeyFile == "") {
		return nil, errors.New("a client certificate needs both its certificate file and its key file")
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

// Catalog returns the hook catalog the client uses.
func (c *Client) Catalog() *catalog.Catalog { return c.catalog }

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
func (c *Client) Call(ctx context.Context, config runtimev1.ClientConfig, hook catalog.GroupVersionHook, handlerName string,
	timeout time.Duration, settings map[string]string, request runtime.Object, response runtimehooksv1.ResponseObject,
) error {
	target, body, responseGVK, err := c.buildRequest(config, hook, handlerName, settings, request)
	if err != nil {
		return err
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
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

// answeredStatus is the status a call's answer said, from what Call
// returned: Success or Failure, and empty for anything else, so that an
// extension's words never become a label value.
func answeredStatus(err error) runtimehooksv1.ResponseStatus {
	var answered *StatusError
	switch {
	case err == nil:
		return runtimehooksv1.ResponseStatusSuccess
	case errors.As(err, &answered) && answered.Status == runtimehooksv1.ResponseStatusFailure:
		return runtimehooksv1.ResponseStatusFailure
	default:
		return ""
	}
}

// buildRequest resolves the hook's request and response kinds and the
// handler's URL, and encodes the request with the registration's settings
// under its own.
func (c *Client) buildRequest(config runtimev1.ClientConfig, hook catalog.GroupVersionHook, handlerName string,
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
	target, err := URL(config, catalog.GVHToPath(hook, handlerName))
	if err != nil {
		return nil, nil, schema.GroupVersionKind{}, err
	}
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

// answer is what an extension sent back: its status and a body no longer
// than the bound.
type answer struct {
	status int
	body   []byte
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

// readAnswer accepts only a 200 carrying a response of the hook's kind
// with status Success, and decodes it into response.
func readAnswer(target *url.URL, a answer, responseGVK schema.GroupVersionKind, response runtimehooksv1.ResponseObject) error {
	if a.status >= 300 && a.status < 400 {
		// Where it redirects to is a response header, which never reaches a
		// condition.
		return failedCall{fmt.Errorf("%s answered HTTP %d, a redirect: redirects are refused", redact(target), a.status)}
	}
	if a.status != http.StatusOK {
		return failedCall{fmt.Errorf("%s answered HTTP %d: %s", redact(target), a.status, snippet(a.body))}
	}
	if err := decodeResponse(a.body, responseGVK, response); err != nil {
		return fmt.Errorf("response from %s: %w", redact(target), err)
	}
	if response.GetStatus() != runtimehooksv1.ResponseStatusSuccess {
		return &StatusError{URL: redact(target), Status: response.GetStatus(), Message: printable(response.GetMessage())}
	}
	return nil
}

// decodeResponse decodes the first JSON value of data into response, as
// Cluster API's client does (a json.Decoder, which never reads what follows
// the value), and refuses an answer that names another kind or apiVersion
// than want. Cluster API's server library writes neither, so an answer
// without them is taken for the kind asked for.
func decodeResponse(data []byte, want schema.GroupVersionKind, response runtimehooksv1.ResponseObject) error {
	// What is checked below is what the extension wrote, not what the
	// caller may have set.
	response.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(response); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return failedCall{fmt.Errorf("not a JSON object (%s): %s", printable(err.Error()), snippet(data))}
		}
		return failedCall{fmt.Errorf("not a %s: %s", want.Kind, printable(err.Error()))}
	}
	switch got := typeMetaOf(response); {
	case got.Kind != "" && got.Kind != want.Kind:
		return fmt.Errorf("answered a %s where a %s was expected (another hook's answer)", printable(got.Kind), want.Kind)
	case got.APIVersion != "" && got.APIVersion != want.GroupVersion().String():
		return fmt.Errorf("answered a %s of apiVersion %q where %q was expected", want.Kind, printable(got.APIVersion), want.GroupVersion().String())
	}
	return nil
}

// typeMetaOf returns the apiVersion and kind obj holds, as written: every
// hook response embeds metav1.TypeMeta, and its parsed form would read an
// apiVersion that does not parse as none.
func typeMetaOf(obj runtime.Object) metav1.TypeMeta {
	if meta, ok := obj.GetObjectKind().(*metav1.TypeMeta); ok {
		return *meta
	}
	apiVersion, kind := obj.GetObjectKind().GroupVersionKind().ToAPIVersionAndKind()
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
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
		TLSHandshakeTimeout: DefaultTimeout,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     idleConnTimeout,
		ForceAttemptHTTP2:   true,
	}
	c.transports[key] = &pooledTransport{Transport: t, lastUsed: now}
	return t, nil
}

// URL returns the address of a hook path on the extension: the URL of
// spec.clientConfig.url, or https://<name>.<namespace>.svc:<port> for a
// service reference, with the reference's path and then hookPath appended.
func URL(config runtimev1.ClientConfig, hookPath string) (*url.URL, error) {
	switch {
	case config.URL != "" && config.Service.IsDefined():
		return nil, errors.New("spec.clientConfig sets both url and service: set exactly one")
	case config.URL != "":
		u, err := url.Parse(config.URL)
		if err != nil {
			return nil, fmt.Errorf("spec.clientConfig.url does not parse: %w", err)
		}
		if u.Scheme != "https" {
			return nil, fmt.Errorf("spec.clientConfig.url %q must use https", redact(u))
		}
		if u.Host == "" {
			return nil, fmt.Errorf("spec.clientConfig.url %q has no host", redact(u))
		}
		if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return nil, errors.New("spec.clientConfig.url must not carry user info, a query or a fragment")
		}
		u.Path = path.Join("/", u.Path, hookPath)
		return u, nil
	case config.Service.IsDefined():
		svc := config.Service
		if svc.Name == "" || svc.Namespace == "" {
			return nil, errors.New("spec.clientConfig.service needs both name and namespace")
		}
		port := int32(defaultServicePort)
		if svc.Port != nil {
			port = *svc.Port
		}
		if port < 1 || port > 65535 {
			return nil, fmt.Errorf("spec.clientConfig.service.port %d is not a valid port", port)
		}
		return &url.URL{
			Scheme: "https",
			Host:   net.JoinHostPort(svc.Name+"."+svc.Namespace+".svc", strconv.Itoa(int(port))),
			Path:   path.Join("/", svc.Path, hookPath),
		}, nil
	default:
		return nil, errors.New("spec.clientConfig sets neither url nor service")
	}
}

// MergeSettings returns the settings sent to an extension: the
// ExtensionConfig's defaults overlaid by the request's own, which win.
func MergeSettings(defaults, request map[string]string) map[string]string {
	if len(defaults) == 0 && len(request) == 0 {
		return nil
	}
	merged := make(map[string]string, len(defaults)+len(request))
	for k, v := range defaults {
		merged[k] = v
	}
	for k, v := range request {
		merged[k] = v
	}
	return merged
}

// redact drops anything but scheme, host and path from a URL for messages.
func redact(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// snippet is the start of a body for an error message: enough to recognise
// an HTML error page or a stack trace, never a flood.
func snippet(data []byte) string {
	s := printable(string(data))
	if s == "" {
		return "(empty body)"
	}
	return strconv.Quote(s)
}

// maxSnippetBytes bounds what an extension's words may put into a
// condition that tenants read.
const maxSnippetBytes = 200

// printable keeps what an extension said fit for a condition: valid UTF-8
// with control and invisible format characters (terminal escapes,
// zero-width spaces) blanked, runs of white space folded, and cut at a
// rune boundary after maxSnippetBytes.
func printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxSnippetBytes {
		return s
	}
	cut := maxSnippetBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
