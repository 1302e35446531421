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

package registry

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"sort"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// Handler is one registered handler of one ExtensionConfig.
type Handler struct {
	// HandlerState is what the index's mappings see: the full name
	// ClusterClasses reference (`<handler>.<config>`), the config that
	// registered it, its fingerprint and the config's namespaceSelector.
	registration.HandlerState
	// HandlerName is the name the extension discovered.
	HandlerName string
	// Hook is the hook the handler serves.
	Hook runtimecatalog.GroupVersionHook
	// TimeoutSeconds and FailurePolicy are as discovered (defaulted).
	TimeoutSeconds int32
	FailurePolicy  runtimev1.FailurePolicy
	// ClientConfig is how to reach the extension.
	ClientConfig runtimev1.ClientConfig
	// Settings are the config's spec.settings, the defaults of every call.
	Settings map[string]string
}

// HandlersFor builds the registry entries for an ExtensionConfig from the
// handlers its status records, and returns the entries it skipped because
// their names cannot be handlers of this config.
func HandlersFor(ext *runtimev1.ExtensionConfig) ([]Handler, []registration.SkippedHandler, error) {
	recorded, skipped := registration.RecordedHandlers(ext)
	handlers := make([]Handler, 0, len(recorded))
	for _, h := range recorded {
		gv, err := schema.ParseGroupVersion(h.RequestHook.APIVersion)
		if err != nil {
			return nil, skipped, fmt.Errorf("handler %s of %s: apiVersion %q: %w", h.FullName, ext.Name, h.RequestHook.APIVersion, err)
		}
		handlers = append(handlers, Handler{
			HandlerState:   registration.StateOf(ext, h),
			HandlerName:    h.HandlerName,
			Hook:           runtimecatalog.GroupVersionHook{Group: gv.Group, Version: gv.Version, Hook: h.RequestHook.Hook},
			TimeoutSeconds: h.TimeoutSeconds,
			FailurePolicy:  h.FailurePolicy,
			ClientConfig:   *ext.Spec.ClientConfig.DeepCopy(),
			Settings:       maps.Clone(ext.Spec.Settings),
		})
	}
	return handlers, skipped, nil
}

// Registry is the set of registered handlers. It is safe for concurrent use.
type Registry struct {
	mu       sync.RWMutex
	byName   map[string]Handler
	byConfig map[string][]string
	// resourceVersions holds, by config, the resourceVersion of the object
	// its registration was built from.
	resourceVersions map[string]string
	gate             *Gate

	subMu       sync.Mutex
	nextSub     int
	subscribers map[int]func([]registration.Change)
}

// New returns an empty registry whose gate is closed.
func New() *Registry {
	return &Registry{
		byName:           map[string]Handler{},
		byConfig:         map[string][]string{},
		resourceVersions: map[string]string{},
		gate:             newGate(),
		subscribers:      map[int]func([]registration.Change){},
	}
}

// Gate says when the registry may be relied on: by /readyz, by reconciles
// and by extension calls.
func (r *Registry) Gate() *Gate { return r.gate }

// Register replaces every handler of ext's config by those its status
// records, and returns the changes a ClusterClass can observe (handlers
// added, removed, with a new fingerprint or a new namespaceSelector).
// Subscribers are told about them once the registry is updated. Recorded
// names that cannot be handlers of ext are skipped and returned for the
// caller to log.
func (r *Registry) Register(ext *runtimev1.ExtensionConfig) ([]registration.Change, []registration.SkippedHandler, error) {
	handlers, skipped, err := HandlersFor(ext)
	if err != nil {
		return nil, skipped, err
	}
	r.mu.Lock()
	before := r.statesOf(ext.Name)
	for _, name := range r.byConfig[ext.Name] {
		delete(r.byName, name)
	}
	names := make([]string, 0, len(handlers))
	for _, h := range handlers {
		names = append(names, h.Name)
		r.byName[h.Name] = h
	}
	sort.Strings(names)
	r.byConfig[ext.Name] = names
	r.resourceVersions[ext.Name] = ext.ResourceVersion
	after := r.statesOf(ext.Name)
	r.mu.Unlock()
	return r.notify(registration.Diff(before, after)), skipped, nil
}

// Unregister removes every handler of an ExtensionConfig and returns the
// removals.
func (r *Registry) Unregister(extensionConfig string) []registration.Change {
	r.mu.Lock()
	before := r.statesOf(extensionConfig)
	for _, name := range r.byConfig[extensionConfig] {
		delete(r.byName, name)
	}
	delete(r.byConfig, extensionConfig)
	delete(r.resourceVersions, extensionConfig)
	r.mu.Unlock()
	return r.notify(registration.Diff(before, nil))
}

// Sync makes the registry hold exactly the handlers the given
// ExtensionConfigs record: each is registered, and every config registered
// before but absent from the list (deleted meanwhile) or being deleted is
// unregistered. It returns the changes, and by config the recorded names
// it skipped and the records it could not register at all.
func (r *Registry) Sync(exts []runtimev1.ExtensionConfig) ([]registration.Change, map[string][]registration.SkippedHandler, map[string]error) {
	listed := make(map[string]bool, len(exts))
	var changes []registration.Change
	skipped := map[string][]registration.SkippedHandler{}
	unusable := map[string]error{}
	for i := range exts {
		ext := &exts[i]
		if !ext.DeletionTimestamp.IsZero() {
			// Its reconcile unregisters it: so does a fresh start.
			continue
		}
		listed[ext.Name] = true
		c, s, err := r.Register(ext)
		if len(s) > 0 {
			skipped[ext.Name] = s
		}
		if err != nil {
			// Unusable records register nothing: drop what the config had.
			unusable[ext.Name] = err
			changes = append(changes, r.Unregister(ext.Name)...)
			continue
		}
		changes = append(changes, c...)
	}
	r.mu.RLock()
	var gone []string
	for name := range r.byConfig {
		if !listed[name] {
			gone = append(gone, name)
		}
	}
	r.mu.RUnlock()
	sort.Strings(gone)
	for _, name := range gone {
		changes = append(changes, r.Unregister(name)...)
	}
	return changes, skipped, unusable
}

// Holds reports whether the registry holds exactly the handlers Register
// would build from ext, so that a caller can skip a registration that
// changes nothing (and tells subscribers nothing).
func (r *Registry) Holds(ext *runtimev1.ExtensionConfig) bool {
	handlers, _, err := HandlersFor(ext)
	if err != nil {
		return false
	}
	sort.Slice(handlers, func(i, j int) bool { return handlers[i].Name < handlers[j].Name })
	registered := r.ForConfig(ext.Name)
	if len(handlers) == 0 {
		return len(registered) == 0
	}
	return reflect.DeepEqual(handlers, registered)
}

// ResourceVersionOf returns the resourceVersion of the object a config's
// registration was built from, and false when it has none.
func (r *Registry) ResourceVersionOf(extensionConfig string) (string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	rv, ok := r.resourceVersions[extensionConfig]
	return rv, ok
}

// statesOf returns the mapping's view of a config's handlers; r.mu is held.
func (r *Registry) statesOf(extensionConfig string) []registration.HandlerState {
	names := r.byConfig[extensionConfig]
	states := make([]registration.HandlerState, 0, len(names))
	for _, name := range names {
		states = append(states, r.byName[name].HandlerState)
	}
	return states
}

// Subscribe calls fn after every Register and Unregister with the changes
// it made (none when the registration stayed the same, which is how a
// subscriber counts events that need no work), until ctx ends. fn runs on
// the caller's goroutine and must not block.
func (r *Registry) Subscribe(ctx context.Context, fn func(changes []registration.Change)) {
	r.subMu.Lock()
	id := r.nextSub
	r.nextSub++
	r.subscribers[id] = fn
	r.subMu.Unlock()
	go func() {
		<-ctx.Done()
		r.subMu.Lock()
		delete(r.subscribers, id)
		r.subMu.Unlock()
	}()
}

// notify hands changes to every subscriber and returns them.
func (r *Registry) notify(changes []registration.Change) []registration.Change {
	r.subMu.Lock()
	subscribers := make([]func([]registration.Change), 0, len(r.subscribers))
	for _, fn := range r.subscribers {
		subscribers = append(subscribers, fn)
	}
	r.subMu.Unlock()
	for _, fn := range subscribers {
		fn(changes)
	}
	return changes
}

// SelectorOf returns the namespaceSelector a config registered with, and
// false when it registered nothing.
func (r *Registry) SelectorOf(extensionConfig string) (*metav1.LabelSelector, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := r.byConfig[extensionConfig]
	if len(names) == 0 {
		return nil, false
	}
	return r.byName[names[0]].NamespaceSelector, true
}

// Get returns the handler registered under a full name.
func (r *Registry) Get(fullName string) (Handler, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	h, ok := r.byName[fullName]
	return h, ok
}

// ForConfig returns the handlers of one ExtensionConfig, sorted by name.
func (r *Registry) ForConfig(extensionConfig string) []Handler {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Handler, 0, len(r.byConfig[extensionConfig]))
	for _, name := range r.byConfig[extensionConfig] {
		out = append(out, r.byName[name])
	}
	return out
}

// ByHook returns every handler serving a hook (any version), sorted by name.
func (r *Registry) ByHook(hook runtimecatalog.GroupHook) []Handler {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []Handler
	for _, h := range r.byName {
		if h.Hook.GroupHook() == hook {
			out = append(out, h)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Len is the number of registered handlers.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.byName)
}
