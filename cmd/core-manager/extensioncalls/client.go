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

package extensioncalls

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	runtimeclient "sigs.k8s.io/cluster-api/exp/runtime/client"
	"sigs.k8s.io/cluster-api/util"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"

	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/topologyresponses"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// Client is our runtime client and registry as Cluster API's reconcilers
// see a runtime client.
type Client struct {
	calls    *rtclient.Client
	registry *registry.Registry
	// reader reads Namespaces, for the handlers' namespaceSelectors.
	reader ctrlclient.Reader
	// responses answers repeated GeneratePatches and ValidateTopology
	// calls of the configs that opted in; nil sends every call.
	responses *topologyresponses.Cache
}

var _ runtimeclient.Client = &Client{}

// New wraps calls and reg; reader reads Namespace metadata. responses,
// when not nil, answers the repeats of GeneratePatches and ValidateTopology
// calls of the configs that opted in to it.
func New(calls *rtclient.Client, reg *registry.Registry, reader ctrlclient.Reader, responses *topologyresponses.Cache) *Client {
	return &Client{calls: calls, registry: reg, reader: reader, responses: responses}
}

// WarmUp registers every listed ExtensionConfig's recorded handlers and
// opens the registry's gate. Like Cluster API's, it may run once.
func (c *Client) WarmUp(list *runtimev1.ExtensionConfigList) error {
	if list == nil {
		return errors.New("failed to warm up registry: invalid argument: when calling WarmUp ExtensionConfigList must not be nil")
	}
	if c.registry.Gate().IsOpen(registry.WarmedUp) {
		return errors.New("failed to warm up registry: invalid operation: WarmUp cannot be called on a registry which has already been warmed up")
	}
	c.registry.Sync(list.Items)
	// Cluster API calls it with the leader's own list: the registry is
	// then as a fresh start builds it.
	c.registry.Gate().Open(registry.WarmedUp)
	c.registry.Gate().Open(registry.Rebuilt)
	return nil
}

// IsReady reports whether calls may be made: the registry was warmed up
// and, as Cluster API's warm-up runs only on the leader, rebuilt by this
// replica as leader.
func (c *Client) IsReady() bool { return c.admit(opGet) == nil }

// registryOp is an operation of Cluster API's registry that our
// registry's gate holds back.
type registryOp struct {
	// refusal is how Cluster API's registry refuses it before its warm-up.
	refusal string
	// call is true for the operations a call makes (List, Get): they wait
	// until the gate lets calls out, the others only for warm-up.
	call bool
}

var (
	opAdd    = registryOp{refusal: "Add cannot be called on a registry which has not been warmed up"}
	opRemove = registryOp{refusal: "Remove cannot be called on a registry which has not been warmed up"}
	opList   = registryOp{refusal: "List cannot be called on a registry which has not been warmed up", call: true}
	opGet    = registryOp{refusal: "Get cannot be called on a registry not yet ready", call: true}
)

// admit is the one place this client asks the registry's gate whether op
// may run. When not, it returns Cluster API's error for op, followed, for
// a call, by what the gate waits for (registry.Gate.Err): a registry that
// is not current could leave out a config this replica never saw, and a
// blocking hook with no handler passes.
func (c *Client) admit(op registryOp) error {
	gate := c.registry.Gate()
	if !op.call {
		if gate.IsOpen(registry.WarmedUp) {
			return nil
		}
		return fmt.Errorf("invalid operation: %s", op.refusal)
	}
	if err := gate.Err(); err != nil {
		return fmt.Errorf("invalid operation: %s: %w", op.refusal, err)
	}
	return nil
}

// Discover runs Discovery and returns a copy of ext whose status lists the
// handlers under their full HANDLER.EXTENSIONCONFIG names.
func (c *Client) Discover(ctx context.Context, ext *runtimev1.ExtensionConfig) (*runtimev1.ExtensionConfig, error) {
	handlers, err := c.calls.Discover(ctx, ext)
	if err != nil {
		return nil, fmt.Errorf("failed to discover extension %q: %w", ext.Name, err)
	}
	discovered := ext.DeepCopy()
	discovered.Status.Handlers = handlers
	return discovered, nil
}

// Register adds ext's recorded handlers to the registry.
func (c *Client) Register(ext *runtimev1.ExtensionConfig) error {
	if ext == nil {
		return errors.New("failed to register ExtensionConfig: failed to add ExtensionConfig to registry: invalid argument: when calling Add extensionConfig must not be nil")
	}
	if err := c.admit(opAdd); err != nil {
		return fmt.Errorf("failed to register ExtensionConfig %q: failed to add ExtensionConfig %q to registry: %w", ext.Name, ext.Name, err)
	}
	if _, _, err := c.registry.Register(ext); err != nil {
		return fmt.Errorf("failed to register ExtensionConfig %q: %w", ext.Name, err)
	}
	return nil
}

// Unregister removes ext's handlers from the registry.
func (c *Client) Unregister(ext *runtimev1.ExtensionConfig) error {
	if ext == nil {
		return errors.New("failed to unregister ExtensionConfig: failed to remove ExtensionConfig from registry: invalid argument: when calling Remove ExtensionConfig must not be nil")
	}
	if err := c.admit(opRemove); err != nil {
		return fmt.Errorf("failed to unregister ExtensionConfig %q: failed to remove ExtensionConfig %q from registry: %w", ext.Name, ext.Name, err)
	}
	c.registry.Unregister(ext.Name)
	return nil
}

// GetAllExtensions lists, sorted, the handlers registered for hook whose
// ExtensionConfig admits forObject's namespace.
func (c *Client) GetAllExtensions(ctx context.Context, hook runtimecatalog.Hook, forObject ctrlclient.Object) ([]string, error) {
	hookName := runtimecatalog.HookName(hook)
	gvh, err := c.calls.Catalog().GroupVersionHook(hook)
	if err != nil {
		return nil, fmt.Errorf("failed to get extension handlers for hook %q: failed to compute GroupVersionHook: %w", hookName, err)
	}
	if err := c.admit(opList); err != nil {
		return nil, fmt.Errorf("failed to get extension handlers for hook %q: failed to list extension handlers for GroupHook %q: %w",
			gvh.GroupHook(), gvh.GroupHook().String(), err)
	}
	handlers := c.registry.ByHook(gvh.GroupHook())
	sort.Slice(handlers, func(i, j int) bool { return handlers[i].Name < handlers[j].Name })
	matching := []string{}
	for _, h := range handlers {
		admitted, err := c.admits(ctx, h.NamespaceSelector, forObject.GetNamespace())
		if err != nil {
			return nil, fmt.Errorf("failed to get extension handlers for hook %q: failed to get extension handler %q: %w", gvh.GroupHook(), h.Name, err)
		}
		if admitted {
			matching = append(matching, h.Name)
		}
	}
	return matching, nil
}

// CallAllExtensions calls every handler GetAllExtensions returns, in
// order, stopping at the first failure, and aggregates their answers as
// Cluster API does: the lowest non-zero retryAfterSeconds and every
// message.
func (c *Client) CallAllExtensions(ctx context.Context, hook runtimecatalog.Hook, forObject ctrlclient.Object,
	request runtimehooksv1.RequestObject, response runtimehooksv1.ResponseObject,
) error {
	hookName := runtimecatalog.HookName(hook)
	cat := c.calls.Catalog()
	gvh, err := cat.GroupVersionHook(hook)
	if err != nil {
		return fmt.Errorf("failed to call extension handlers for hook %q: failed to compute GroupVersionHook: %w", hookName, err)
	}
	if err := cat.ValidateRequest(gvh, request); err != nil {
		return fmt.Errorf("failed to call extension handlers for hook %q: request object is invalid for hook: %w", gvh.GroupHook(), err)
	}
	if err := cat.ValidateResponse(gvh, response); err != nil {
		return fmt.Errorf("failed to call extension handlers for hook %q: response object is invalid for hook: %w", gvh.GroupHook(), err)
	}
	names, err := c.GetAllExtensions(ctx, hook, forObject)
	if err != nil {
		return fmt.Errorf("failed to call extension handlers for hook %q: %w", gvh.GroupHook(), err)
	}
	responses := make([]runtimehooksv1.ResponseObject, 0, len(names))
	for _, name := range names {
		obj, err := cat.NewResponse(gvh)
		if err != nil {
			return fmt.Errorf("failed to call extension handlers for hook %q: failed to call extension handler %q: %w", gvh.GroupHook(), name, err)
		}
		one := obj.(runtimehooksv1.ResponseObject)
		if err := c.CallExtension(ctx, hook, forObject, name, request, one); err != nil {
			return fmt.Errorf("failed to call extension handlers for hook %q: %w", gvh.GroupHook(), err)
		}
		responses = append(responses, one)
	}
	aggregate(response, responses)
	return nil
}

// aggregate folds successful answers into one.
func aggregate(into runtimehooksv1.ResponseObject, responses []runtimehooksv1.ResponseObject) {
	into.SetStatus(runtimehooksv1.ResponseStatusSuccess)
	var messages []string
	for _, r := range responses {
		if retry, ok := into.(runtimehooksv1.RetryResponseObject); ok {
			retry.SetRetryAfterSeconds(util.LowestNonZeroInt32(retry.GetRetryAfterSeconds(), r.(runtimehooksv1.RetryResponseObject).GetRetryAfterSeconds()))
		}
		if r.GetMessage() != "" {
			messages = append(messages, r.GetMessage())
		}
	}
	into.SetMessage(strings.Join(messages, ", "))
}

// CallExtension calls the handler registered as name. As in Cluster API's
// client, failurePolicy Ignore makes a success of a call that got no
// answer a response could be read from (rtclient.FailurePolicyApplies),
// and of nothing else: a clientConfig no call can be made with, an answer
// whose status is not Success, one over the size bound and one of another
// hook's kind are errors whatever the policy.
func (c *Client) CallExtension(ctx context.Context, hook runtimecatalog.Hook, forObject ctrlclient.Object, name string,
	request runtimehooksv1.RequestObject, response runtimehooksv1.ResponseObject, opts ...runtimeclient.CallExtensionOption,
) error {
	options := &runtimeclient.CallExtensionOptions{}
	for _, opt := range opts {
		opt.ApplyToOptions(options)
	}
	cat := c.calls.Catalog()
	gvh, err := cat.GroupVersionHook(hook)
	if err != nil {
		return fmt.Errorf("failed to call extension handler %q: failed to compute GroupVersionHook: %w", name, err)
	}
	if err := cat.ValidateRequest(gvh, request); err != nil {
		return fmt.Errorf("failed to call extension handler %q: request object is invalid for hook %q: %w", name, gvh, err)
	}
	if err := cat.ValidateResponse(gvh, response); err != nil {
		return fmt.Errorf("failed to call extension handler %q: response object is invalid for hook %q: %w", name, gvh, err)
	}
	if err := c.admit(opGet); err != nil {
		return fmt.Errorf("failed to call extension handler %q: failed to get extension handler %q from registry: %w", name, name, err)
	}
	h, ok := c.registry.Get(name)
	if !ok {
		return fmt.Errorf("failed to call extension handler %q: failed to get extension handler %q from registry: handler with name %q has not been registered", name, name, name)
	}
	if h.Hook.GroupHook() != gvh.GroupHook() {
		return fmt.Errorf("failed to call extension handler %q: handler does not match GroupHook %q", name, gvh.GroupHook())
	}
	admitted, err := c.admits(ctx, h.NamespaceSelector, forObject.GetNamespace())
	if err != nil {
		// Cluster API's CallExtension drops the cause here; its
		// GetAllExtensions, and ours, say it, and so does this.
		return fmt.Errorf("failed to call extension handler %q: %w", name, err)
	}
	if !admitted {
		return fmt.Errorf("failed to call extension handler %q: namespaceSelector did not match object %s", name, util.ObjectKey(forObject))
	}

	timeout := userfacing.DefaultCallTimeout
	if h.TimeoutSeconds != 0 {
		timeout = time.Duration(h.TimeoutSeconds) * time.Second
	}
	var cacheKey string
	if options.WithCaching {
		merged := withSettings(request, h.Settings)
		// Our registry keys answers by the handler's registration, not by
		// the ExtensionConfig's resourceVersion: a status write that
		// changes nothing a call sends keeps the cached answer.
		cacheKey = options.CacheKeyFunc(h.Name, h.Fingerprint, merged)
		if entry, ok := options.Cache.Has(cacheKey); ok {
			out, cached := reflect.ValueOf(response), reflect.ValueOf(entry.Response)
			if !cached.Type().AssignableTo(out.Type()) {
				return fmt.Errorf("failed to call extension handler %q: cached response of type %s instead of type %s", name, cached.Type(), out.Type())
			}
			reflect.Indirect(out).Set(reflect.Indirect(cached))
			return nil
		}
	}

	// Cluster API's topology controller asks these hooks on every
	// reconcile, with no cache option of its own.
	var pending topologyresponses.Pending
	if c.responses != nil {
		var hit bool
		pending, hit = c.responses.Lookup(topologyresponses.Call{
			Handler: h.Name, ExtensionConfig: h.ExtensionConfig, Fingerprint: h.Fingerprint, Settings: h.Settings,
		}, request, response)
		if hit {
			return nil
		}
	}

	err = c.calls.Call(ctx, h.ClientConfig, h.Hook, h.HandlerName, timeout, h.Settings, request, response)
	var answered *rtclient.StatusError
	switch {
	case err == nil:
	case errors.As(err, &answered) && answered.Status == runtimehooksv1.ResponseStatusFailure:
		return fmt.Errorf("failed to call extension handler %q: got failure response with message: %v", name, response.GetMessage())
	case errors.As(err, &answered):
		return fmt.Errorf("failed to call extension handler %q: got unknown response status %q with message: %v", name, response.GetStatus(), response.GetMessage())
	case h.FailurePolicy == runtimev1.FailurePolicyIgnore && rtclient.FailurePolicyApplies(err):
		// Cluster API's documented default success response. A body that
		// did not decode may have filled some fields; unlike Cluster API,
		// none of them is kept, so that half an answer is never applied.
		reflect.Indirect(reflect.ValueOf(response)).SetZero()
		response.SetStatus(runtimehooksv1.ResponseStatusSuccess)
		return nil
	default:
		return fmt.Errorf("failed to call extension handler %q: %w", name, err)
	}
	if options.WithCaching {
		options.Cache.Add(runtimeclient.CallExtensionCacheEntry{CacheKey: cacheKey, Response: response})
	}
	if c.responses != nil {
		c.responses.Store(pending, response)
	}
	return nil
}

// withSettings is request with the registration's settings under its own,
// merged as the runtime client merges them when it sends it: the cache key
// is computed from what is sent.
func withSettings(request runtimehooksv1.RequestObject, registration map[string]string) runtimehooksv1.RequestObject {
	merged := request.DeepCopyObject().(runtimehooksv1.RequestObject)
	merged.SetSettings(rtclient.MergeSettings(registration, request.GetSettings()))
	return merged
}

// admits reports whether selector admits namespace; an empty selector
// admits every namespace without reading it, a nil one none.
func (c *Client) admits(ctx context.Context, selector *metav1.LabelSelector, namespace string) (bool, error) {
	// As in Cluster API's registry, a missing selector admits nothing
	// (its webhook defaults it to the empty one, which admits all), as
	// in our ClusterClass controller.
	s, err := registration.Selector(selector)
	if err != nil {
		return false, fmt.Errorf("failed to match namespace: %w", err)
	}
	if s.Empty() {
		return true, nil
	}
	ns := extensionindex.NamespaceMetadata()
	if err := c.reader.Get(ctx, ctrlclient.ObjectKey{Name: namespace}, ns); err != nil {
		return false, fmt.Errorf("failed to match namespace: failed to get namespace %s: %w", namespace, err)
	}
	return s.Matches(labels.Set(ns.GetLabels())), nil
}
