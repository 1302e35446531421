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
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// maxTimeoutSeconds is the largest timeout a handler may ask for.
const maxTimeoutSeconds = 30

// Discover calls the Discovery hook of ext's extension and returns its
// handlers, defaulted (timeout 10 s, failure policy Fail), validated, and
// named with their full name `<handler>.<config>`, which status records
// and everything else keys on, as Cluster API's client names them. Nothing
// is returned unless every handler is valid: a partially valid answer is
// an error, so a lying extension cannot register half its handlers.
func (c *Client) Discover(ctx context.Context, ext *runtimev1.ExtensionConfig) ([]runtimev1.ExtensionHandler, error) {
	hook, err := c.catalog.GroupVersionHook(runtimehooksv1.Discovery)
	if err != nil {
		return nil, fmt.Errorf("discovery hook: %w", err)
	}
	response := &runtimehooksv1.DiscoveryResponse{}
	if err := c.Call(ctx, ext.Spec.ClientConfig, hook, "", c.discoveryTimeout, nil, &runtimehooksv1.DiscoveryRequest{}, response); err != nil {
		return nil, err
	}
	handlers, err := ValidateDiscovery(c.catalog, response)
	if err != nil {
		return nil, err
	}
	for i := range handlers {
		handlers[i].Name = registration.FullHandlerName(handlers[i].Name, ext.Name)
	}
	return handlers, nil
}

// ValidateDiscovery defaults and checks a Discovery response: each handler
// name is a DNS-1123 label (so it has no dot and `<handler>.<config>` stays
// unambiguous) and unique, its hook is one the catalog knows, its timeout
// is within 0..30 seconds, and its failure policy is Fail or Ignore. All
// problems are reported together. These are Cluster API's checks: a
// Discovery handler is accepted and registered as it is there (nothing
// calls it), and an empty list of handlers is a valid answer.
func ValidateDiscovery(cat *runtimecatalog.Catalog, response *runtimehooksv1.DiscoveryResponse) ([]runtimev1.ExtensionHandler, error) {
	var problems []string
	seen := map[string]bool{}
	handlers := make([]runtimev1.ExtensionHandler, 0, len(response.Handlers))
	for i, h := range response.Handlers {
		where := fmt.Sprintf("handlers[%d]", i)
		if h.Name != "" {
			where = fmt.Sprintf("handler %q", h.Name)
		}
		switch {
		case h.Name == "":
			problems = append(problems, where+": name is empty")
		case strings.Contains(h.Name, "."):
			problems = append(problems, where+": name must not contain a dot")
		default:
			if errs := validation.IsDNS1123Label(h.Name); len(errs) > 0 {
				problems = append(problems, where+": name "+strings.Join(errs, "; "))
			}
		}
		if seen[h.Name] && h.Name != "" {
			problems = append(problems, where+": name is listed twice")
		}
		seen[h.Name] = true

		gv, err := schema.ParseGroupVersion(h.RequestHook.APIVersion)
		gvh := runtimecatalog.GroupVersionHook{Group: gv.Group, Version: gv.Version, Hook: h.RequestHook.Hook}
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: requestHook.apiVersion %q does not parse", where, h.RequestHook.APIVersion))
		case !cat.IsHookRegistered(gvh):
			problems = append(problems, fmt.Sprintf("%s: unknown hook %s %s", where, h.RequestHook.APIVersion, h.RequestHook.Hook))
		}

		timeout := int32(runtimehooksv1.DefaultHandlersTimeoutSeconds)
		if h.TimeoutSeconds != nil {
			timeout = *h.TimeoutSeconds
		}
		if timeout < 0 || timeout > maxTimeoutSeconds {
			problems = append(problems, fmt.Sprintf("%s: timeoutSeconds %d is outside 0..%d", where, timeout, maxTimeoutSeconds))
		}

		policy := runtimehooksv1.FailurePolicyFail
		if h.FailurePolicy != nil {
			policy = *h.FailurePolicy
		}
		if policy != runtimehooksv1.FailurePolicyFail && policy != runtimehooksv1.FailurePolicyIgnore {
			problems = append(problems, fmt.Sprintf("%s: failurePolicy %q is neither Fail nor Ignore", where, policy))
		}

		handlers = append(handlers, runtimev1.ExtensionHandler{
			Name:           h.Name,
			RequestHook:    runtimev1.GroupVersionHook{APIVersion: h.RequestHook.APIVersion, Hook: h.RequestHook.Hook},
			TimeoutSeconds: timeout,
			FailurePolicy:  runtimev1.FailurePolicy(policy),
		})
	}
	if len(problems) > 0 {
		return nil, errors.New("invalid discovery response: " + strings.Join(problems, "; "))
	}
	return handlers, nil
}
