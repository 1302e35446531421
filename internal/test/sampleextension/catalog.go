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

package sampleextension

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

// hookCatalog is Cluster API's catalog of the v1alpha1 hooks. It is built
// once and only read afterwards, so sharing it between Servers is safe.
var hookCatalog = sync.OnceValue(func() *runtimecatalog.Catalog {
	c := runtimecatalog.New()
	if err := runtimehooksv1.AddToCatalog(c); err != nil {
		// Registration is static: it fails only if the dependency is broken,
		// which no caller could handle.
		panic(fmt.Sprintf("register Cluster API runtime hooks: %v", err))
	}
	return c
})

// groupVersionHook returns the GroupVersionHook of a hook function of
// runtimehooksv1, such as runtimehooksv1.DiscoverVariables.
func groupVersionHook(hook runtimecatalog.Hook) runtimecatalog.GroupVersionHook {
	gvh, err := hookCatalog().GroupVersionHook(hook)
	if err != nil {
		// Only called with hooks of the package the catalog was built from.
		panic(fmt.Sprintf("look up hook %s: %v", runtimecatalog.HookName(hook), err))
	}
	return gvh
}

// requestHook is the form of gvh that ExtensionHandlers advertise.
func requestHook(gvh runtimecatalog.GroupVersionHook) runtimehooksv1.GroupVersionHook {
	return runtimehooksv1.GroupVersionHook{APIVersion: gvh.GroupVersion().String(), Hook: gvh.Hook}
}

// DiscoveryPath is the path of the Discovery hook, which unlike every other
// hook has no handler name.
const DiscoveryPath = "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery"

// Names of the handlers in DefaultHandlers.
const (
	DiscoverVariablesHandler = "discover-variables"
	GeneratePatchesHandler   = "generate-patches"
	ValidateTopologyHandler  = "validate-topology"
)

// DefaultHandlers returns the handlers a Server advertises unless told
// otherwise: DiscoverVariablesHandler, GeneratePatchesHandler and
// ValidateTopologyHandler for the hooks of the same names, each with a
// timeout of 10 seconds and failure policy Fail.
func DefaultHandlers() []runtimehooksv1.ExtensionHandler {
	handler := func(name string, hook runtimecatalog.Hook) runtimehooksv1.ExtensionHandler {
		return runtimehooksv1.ExtensionHandler{
			Name:           name,
			RequestHook:    requestHook(groupVersionHook(hook)),
			TimeoutSeconds: ptr.To[int32](runtimehooksv1.DefaultHandlersTimeoutSeconds),
			FailurePolicy:  ptr.To(runtimehooksv1.FailurePolicyFail),
		}
	}
	return []runtimehooksv1.ExtensionHandler{
		handler(DiscoverVariablesHandler, runtimehooksv1.DiscoverVariables),
		handler(GeneratePatchesHandler, runtimehooksv1.GeneratePatches),
		handler(ValidateTopologyHandler, runtimehooksv1.ValidateTopology),
	}
}

// WithFailurePolicy returns a copy of handlers in which the handler named
// name has failure policy policy, as Discovery then advertises it.
func WithFailurePolicy(handlers []runtimehooksv1.ExtensionHandler, name string, policy runtimehooksv1.FailurePolicy) []runtimehooksv1.ExtensionHandler {
	out := make([]runtimehooksv1.ExtensionHandler, 0, len(handlers))
	for _, h := range handlers {
		h = *h.DeepCopy()
		if h.Name == name {
			h.FailurePolicy = ptr.To(policy)
		}
		out = append(out, h)
	}
	return out
}

// HandlerPath returns the path at which a Server answers h, the same path
// Cluster API's runtime client calls: runtimecatalog.GVHToPath of its hook and
// name. It fails if h's apiVersion does not parse.
func HandlerPath(h runtimehooksv1.ExtensionHandler) (string, error) {
	gvh, err := handlerGVH(h)
	if err != nil {
		return "", err
	}
	return runtimecatalog.GVHToPath(gvh, h.Name), nil
}

func handlerGVH(h runtimehooksv1.ExtensionHandler) (runtimecatalog.GroupVersionHook, error) {
	gv, err := schema.ParseGroupVersion(h.RequestHook.APIVersion)
	if err != nil {
		return runtimecatalog.GroupVersionHook{}, fmt.Errorf("handler %q: %w", h.Name, err)
	}
	return runtimecatalog.GroupVersionHook{Group: gv.Group, Version: gv.Version, Hook: h.RequestHook.Hook}, nil
}
