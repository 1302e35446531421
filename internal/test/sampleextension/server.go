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
	"encoding/json"
	"maps"
	"math/rand/v2"
	"sync"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

// Options configure a Server when it is created; everything but Seed can be
// changed later with the Server's setters.
type Options struct {
	// Handlers are what Discovery advertises and what the Server answers;
	// nil means DefaultHandlers().
	Handlers []runtimehooksv1.ExtensionHandler

	// Variables are the variables each DiscoverVariables handler returns,
	// by handler name. Handlers without an entry return none.
	Variables map[string][]clusterv1.ClusterClassVariable

	// Seed seeds the random draws that pick faults, so that a sequence of
	// calls gets the same faults in every run.
	Seed uint64
}

// Server is a Cluster API Runtime Extension whose answers tests control. It
// is safe for concurrent use.
type Server struct {
	mu        sync.RWMutex
	handlers  []runtimehooksv1.ExtensionHandler
	routes    map[string]route
	variables map[string][]clusterv1.ClusterClassVariable
	faults    map[string]Faults
	patches   map[string][]Patch
	retries   map[string]Retry

	randMu sync.Mutex
	rand   *rand.Rand

	callsMu  sync.Mutex
	calls    map[string]int64
	total    int64
	settings map[string]map[string]map[string]string
}

// route is one endpoint the Server answers.
type route struct {
	gvh runtimecatalog.GroupVersionHook
	// hook and handler are as advertised; handler is empty for Discovery.
	hook    string
	handler string
}

// key names the route in call counts and fault targets: "<Hook>/<handler>",
// or just "Discovery".
func (r route) key() string {
	if r.handler == "" {
		return r.hook
	}
	return r.hook + "/" + r.handler
}

// New returns a Server configured by opts.
func New(opts Options) *Server {
	s := &Server{
		variables: map[string][]clusterv1.ClusterClassVariable{},
		faults:    map[string]Faults{},
		// The second word only has to differ from the first; any constant will do.
		rand:  rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
		calls: map[string]int64{},
	}
	handlers := opts.Handlers
	if handlers == nil {
		handlers = DefaultHandlers()
	}
	s.SetHandlers(handlers)
	for name, vars := range opts.Variables {
		s.SetVariables(name, vars)
	}
	return s
}

// SetHandlers replaces what Discovery advertises. The handlers are not
// validated, so a Server can advertise what a controller must reject: names
// with dots, unknown hooks, timeouts out of range. The Server answers calls
// to each advertised handler whose hook is in Cluster API's catalog, at
// HandlerPath; calls to anything else, including handlers advertised before,
// get 404. If two handlers share a path the first one answers.
func (s *Server) SetHandlers(handlers []runtimehooksv1.ExtensionHandler) {
	copied := make([]runtimehooksv1.ExtensionHandler, 0, len(handlers))
	routes := map[string]route{
		DiscoveryPath: {gvh: groupVersionHook(runtimehooksv1.Discovery), hook: "Discovery"},
	}
	for _, h := range handlers {
		copied = append(copied, *h.DeepCopy())
		gvh, err := handlerGVH(h)
		if err != nil || !hookCatalog().IsHookRegistered(gvh) {
			// Advertised but not answered: that is the lie the caller asked for.
			continue
		}
		path := runtimecatalog.GVHToPath(gvh, h.Name)
		if _, taken := routes[path]; !taken {
			routes[path] = route{gvh: gvh, hook: gvh.Hook, handler: h.Name}
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers = copied
	s.routes = routes
}

// SetVariables sets the variables the DiscoverVariables handler named
// handler returns; nil or empty removes them.
func (s *Server) SetVariables(handler string, vars []clusterv1.ClusterClassVariable) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(vars) == 0 {
		delete(s.variables, handler)
		return
	}
	s.variables[handler] = deepCopyVariables(vars)
}

// SetFaults sets the faults of the calls target names: "" is every call
// (Discovery included), "<Hook>" (such as "DiscoverVariables") every call of
// that hook, and "<Hook>/<handler>" every call of one handler. The most
// specific target set for a call applies, and replaces the less specific
// ones entirely: SetFaults("Discovery", Faults{}) keeps Discovery
// well-behaved whatever the global faults are. f is not validated (see
// Faults.Validate): rates below 0 act as 0, and above 1 as 1.
func (s *Server) SetFaults(target string, f Faults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[target] = f.clone()
}

// ResetFaults removes the faults of every target.
func (s *Server) ResetFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = map[string]Faults{}
}

// Calls returns how many calls each handler has answered since the Server
// was created or ResetCalls, keyed "<Hook>/<handler>" (such as
// "DiscoverVariables/discover-variables") and "Discovery". A call counts
// when its path and method are right, before any fault is injected, so
// faulted calls count too.
func (s *Server) Calls() map[string]int64 {
	return s.CallCounts().Calls
}

// Total returns the sum of Calls.
func (s *Server) Total() int64 {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	return s.total
}

// CallCounts is a consistent snapshot of Total and Calls.
type CallCounts struct {
	Total int64            `json:"total"`
	Calls map[string]int64 `json:"calls"`
}

// CallCounts returns Total and Calls taken at the same instant.
func (s *Server) CallCounts() CallCounts {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	calls := make(map[string]int64, len(s.calls))
	for k, v := range s.calls {
		calls[k] = v
	}
	return CallCounts{Total: s.total, Calls: calls}
}

// ResetCalls sets every count to zero and forgets the settings seen.
func (s *Server) ResetCalls() {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	s.calls = map[string]int64{}
	s.total = 0
	s.settings = nil
}

// SettingsSeen returns the distinct request settings the calls of one
// handler (keyed as in Calls) carried since the Server was created or
// ResetCalls, in no particular order. A controller that merges an
// ExtensionConfig's spec.settings into its requests shows here which
// registration it called with.
func (s *Server) SettingsSeen(key string) []map[string]string {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	out := make([]map[string]string, 0, len(s.settings[key]))
	for _, settings := range s.settings[key] {
		out = append(out, maps.Clone(settings))
	}
	return out
}

func (s *Server) recordSettings(key string, settings map[string]string) {
	id, _ := json.Marshal(settings) // a map of strings: cannot fail; keys sorted
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	if s.settings == nil {
		s.settings = map[string]map[string]map[string]string{}
	}
	if s.settings[key] == nil {
		s.settings[key] = map[string]map[string]string{}
	}
	s.settings[key][string(id)] = maps.Clone(settings)
}

// count records a call of key and returns its calls so far.
func (s *Server) count(key string) int64 {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	s.calls[key]++
	s.total++
	return s.calls[key]
}

func (s *Server) lookup(path string) (route, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.routes[path]
	return r, ok
}

func (s *Server) advertised() []runtimehooksv1.ExtensionHandler {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]runtimehooksv1.ExtensionHandler, 0, len(s.handlers))
	for _, h := range s.handlers {
		out = append(out, *h.DeepCopy())
	}
	return out
}

func (s *Server) variablesOf(handler string) []clusterv1.ClusterClassVariable {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return deepCopyVariables(s.variables[handler])
}

// faultsOf returns the faults of the most specific target r matches.
func (s *Server) faultsOf(r route) Faults {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, target := range []string{r.key(), r.hook, ""} {
		if f, ok := s.faults[target]; ok {
			return f
		}
	}
	return Faults{}
}

// pick draws the fault of one call. Only rated faults consume a draw, so
// that the sequence of faults depends on the seed and the rated calls alone.
func (s *Server) pick(f Faults) fault {
	if !f.rated() {
		return faultNone
	}
	s.randMu.Lock()
	u := s.rand.Float64()
	s.randMu.Unlock()
	return f.pick(u)
}

func deepCopyVariables(vars []clusterv1.ClusterClassVariable) []clusterv1.ClusterClassVariable {
	if vars == nil {
		return nil
	}
	out := make([]clusterv1.ClusterClassVariable, len(vars))
	for i := range vars {
		vars[i].DeepCopyInto(&out[i])
	}
	return out
}
