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

package topologyresponses

import (
	"container/list"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// Lookup results, as counted by the Observer.
const (
	Hit  = "hit"
	Miss = "miss"
	// Bypass: caching is on for the config, but this request cannot be
	// keyed soundly (two items of one holder), so it is always sent.
	Bypass = "bypass"
)

// Options bound a Cache.
type Options struct {
	// MaxEntries and MaxBytes bound the answers held; the least recently
	// used go first. Zero means userfacing.DefaultResponseCacheMaxEntries
	// and userfacing.DefaultResponseCacheMaxBytes.
	MaxEntries int
	MaxBytes   int64
	// Observer, when set, is told every lookup and every change of the
	// entries a handler holds.
	Observer Observer
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Observer sees the cache work, for metrics.
type Observer interface {
	Lookup(hook, handler, result string)
	Entries(handler string, entries int, totalBytes int64)
}

// Call names where a call goes: the full handler name, its ExtensionConfig,
// the fingerprint of its registration and the registration's settings,
// which the request's own override as the runtime client merges them.
type Call struct {
	Handler, ExtensionConfig, Fingerprint string
	Settings                              map[string]string
}

// Cache holds GeneratePatches and ValidateTopology answers. It is safe for
// concurrent use.
type Cache struct {
	opts Options

	mu      sync.Mutex
	entries map[Key]*entry
	// recent orders the entries, most recently used first.
	recent *list.List
	// stored orders each config's entries oldest first, so that those past
	// its max age are dropped from the front, and forget drops a config's
	// answers without walking every other config's. Without it, an answer
	// that is never asked for again stays until the bounds push it out: at
	// scale every Cluster's requests change as it progresses, and
	// superseded answers would fill the cache to its bounds.
	stored map[string]*list.List
	bytes  int64
	// maxAge holds the configs that opted in.
	maxAge map[string]time.Duration
	// epoch numbers each opted-in config's answers since its last Forget
	// or opt-in, so that an answer to a call made before either is not
	// stored after it. The numbers come from one counter, lastEpoch, so
	// that a config turned off keeps no number and one turned on again
	// never reuses an old one.
	epoch     map[string]uint64
	lastEpoch uint64
	byHandler map[string]int
}

type entry struct {
	key             Key
	handler, config string
	stored          time.Time
	response        runtimehooksv1.ResponseObject
	holderByUID     map[types.UID]string
	size            int64
	// used is the entry's place in recent, and age its place in its
	// config's stored list; remove unlinks both.
	used, age *list.Element
}

// New returns an empty cache in which no config has opted in.
func New(opts Options) *Cache {
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = userfacing.DefaultResponseCacheMaxEntries
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = userfacing.DefaultResponseCacheMaxBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Cache{
		opts: opts, entries: map[Key]*entry{}, recent: list.New(), stored: map[string]*list.List{},
		maxAge: map[string]time.Duration{}, epoch: map[string]uint64{}, byHandler: map[string]int{},
	}
}

// SetMaxAge turns caching on for config's handlers, answers being reused
// for maxAge, or off when maxAge is zero: its answers are then dropped.
// A shorter max age applies at once to the answers already held: those
// past it are dropped, and a longer max age set later does not bring
// them back.
func (c *Cache) SetMaxAge(config string, maxAge time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, on := c.maxAge[config]
	if maxAge > 0 {
		if !on {
			c.newEpoch(config)
		}
		c.maxAge[config] = maxAge
		c.dropExpired(config, c.opts.Now())
		return
	}
	if !on {
		// Off already, so nothing is held: most configs never opt in,
		// and each of their reconciles says so.
		return
	}
	delete(c.maxAge, config)
	c.forget(config)
	delete(c.epoch, config)
}

// newEpoch gives config a number no call in flight holds; c.mu is held.
func (c *Cache) newEpoch(config string) {
	c.lastEpoch++
	c.epoch[config] = c.lastEpoch
}

// Forget drops every answer of config's handlers: its registration or
// settings changed, or it is gone.
func (c *Cache) Forget(config string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, on := c.maxAge[config]; !on {
		// Store keeps nothing for a config that is off.
		return
	}
	c.forget(config)
}

// forget drops config's answers and voids its calls in flight; c.mu is
// held.
func (c *Cache) forget(config string) {
	c.newEpoch(config)
	// Each remove unlinks the front entry from ages, so the loop ends;
	// ages stays readable after remove deletes it from c.stored.
	for ages := c.stored[config]; ages != nil && ages.Len() > 0; {
		c.remove(ages.Front().Value.(*entry))
	}
}

// ForgetChanged forgets the configs of handlers whose registration changed
// or went; it is a registry subscriber. A namespaceSelector change alone
// changes no answer and keeps them.
func (c *Cache) ForgetChanged(changes []registration.Change) {
	forgotten := map[string]bool{}
	for _, change := range changes {
		if change.Old == nil || change.Kind == registration.SelectorChanged || forgotten[change.Old.ExtensionConfig] {
			continue
		}
		forgotten[change.Old.ExtensionConfig] = true
		c.Forget(change.Old.ExtensionConfig)
	}
}

// Pending is a lookup that missed: Store keeps the answer the call gets.
// The zero Pending stores nothing.
type Pending struct {
	call  Call
	req   request
	epoch uint64
	ok    bool
}

// Lookup answers req into resp from memory when the handler's config opted
// in and an answer to an equal request, younger than the max age, is held.
// Otherwise it returns the Pending to Store the call's answer with.
func (c *Cache) Lookup(call Call, req runtimehooksv1.RequestObject, resp runtimehooksv1.ResponseObject) (Pending, bool) {
	c.mu.Lock()
	maxAge, on := c.maxAge[call.ExtensionConfig]
	epoch := c.epoch[call.ExtensionConfig]
	c.mu.Unlock()
	hook := hookOf(req)
	if !on || hook == "" {
		// Another hook (DiscoverVariables, a lifecycle hook) is never
		// cached here, nor counted.
		return Pending{}, false
	}
	normal, err := normalise(call, req)
	if err != nil {
		c.observeLookup(hook, call.Handler, Bypass)
		return Pending{}, false
	}
	pending := Pending{call: call, req: normal, epoch: epoch, ok: true}

	// An entry never changes once stored, so it is read past the lock.
	var cached *entry
	c.mu.Lock()
	if e, found := c.entries[normal.key]; found {
		if c.opts.Now().Sub(e.stored) < maxAge {
			c.recent.MoveToFront(e.used)
			cached = e
		} else {
			c.remove(e)
		}
	}
	c.mu.Unlock()

	// The stored answer is never handed out: a copy is rewritten.
	if cached == nil || !answerFrom(cached, normal, resp) {
		c.observeLookup(hook, call.Handler, Miss)
		return pending, false
	}
	c.observeLookup(hook, call.Handler, Hit)
	return pending, true
}

// Store keeps a copy of resp, the successful answer to the call p missed.
// A failed answer, one that names a uid the request did not hold, and one
// of a config that left the cache or changed since the lookup are not kept.
// Every config's answers past its max age are dropped first.
func (c *Cache) Store(p Pending, resp runtimehooksv1.ResponseObject) {
	if !p.ok || resp.GetStatus() != runtimehooksv1.ResponseStatusSuccess {
		return
	}
	if err := namesOnlyRequestItems(resp, p.req); err != nil {
		return
	}
	encoded, err := json.Marshal(resp)
	if err != nil {
		return
	}
	e := &entry{
		key: p.req.key, handler: p.call.Handler, config: p.call.ExtensionConfig,
		response:    resp.DeepCopyObject().(runtimehooksv1.ResponseObject),
		holderByUID: p.req.holderByUID,
		size:        int64(len(encoded)) + holdersSize(p.req.holderByUID),
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, on := c.maxAge[e.config]; !on || c.epoch[e.config] != p.epoch || e.size > c.opts.MaxBytes {
		return
	}
	if old, ok := c.entries[e.key]; ok {
		c.remove(old)
	}
	// Read under the lock, so that each config's stored list is in order
	// while Now never goes back, as time.Now's monotonic reading does not.
	// A clock that did would only delay the drop: lookups check the age.
	e.stored = c.opts.Now()
	for config := range c.stored {
		c.dropExpired(config, e.stored)
	}
	ages := c.stored[e.config]
	if ages == nil {
		ages = list.New()
		c.stored[e.config] = ages
	}
	e.age = ages.PushBack(e)
	e.used = c.recent.PushFront(e)
	c.entries[e.key] = e
	c.bytes += e.size
	c.byHandler[e.handler]++
	c.observeEntries(e.handler)
	for c.recent.Len() > c.opts.MaxEntries || c.bytes > c.opts.MaxBytes {
		c.remove(c.recent.Back().Value.(*entry))
	}
}

// Len returns the number of answers held and their estimated bytes.
func (c *Cache) Len() (entries int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.recent.Len(), c.bytes
}

// dropExpired drops config's answers stored maxAge or longer before now:
// no lookup would answer with them. c.mu is held.
func (c *Cache) dropExpired(config string, now time.Time) {
	ages := c.stored[config]
	maxAge := c.maxAge[config]
	// As in forget, each remove unlinks the front entry from ages.
	for ages != nil && ages.Len() > 0 {
		oldest := ages.Front().Value.(*entry)
		if now.Sub(oldest.stored) < maxAge {
			return
		}
		c.remove(oldest)
	}
}

// remove drops one entry; c.mu is held.
func (c *Cache) remove(e *entry) {
	c.recent.Remove(e.used)
	delete(c.entries, e.key)
	if ages := c.stored[e.config]; ages != nil {
		ages.Remove(e.age)
		if ages.Len() == 0 {
			delete(c.stored, e.config)
		}
	}
	c.bytes -= e.size
	if c.byHandler[e.handler]--; c.byHandler[e.handler] <= 0 {
		delete(c.byHandler, e.handler)
	}
	c.observeEntries(e.handler)
}

func (c *Cache) observeEntries(handler string) {
	if c.opts.Observer != nil {
		c.opts.Observer.Entries(handler, c.byHandler[handler], c.bytes)
	}
}

func (c *Cache) observeLookup(hook, handler, result string) {
	if c.opts.Observer != nil {
		c.opts.Observer.Lookup(hook, handler, result)
	}
}

// The hooks cached, named as Cluster API's catalog names them: in keys,
// and in what the Observer is told.
var (
	generatePatchesHook  = runtimecatalog.HookName(runtimehooksv1.GeneratePatches)
	validateTopologyHook = runtimecatalog.HookName(runtimehooksv1.ValidateTopology)
)

func hookOf(req runtimehooksv1.RequestObject) string {
	switch req.(type) {
	case *runtimehooksv1.GeneratePatchesRequest:
		return generatePatchesHook
	case *runtimehooksv1.ValidateTopologyRequest:
		return validateTopologyHook
	}
	return ""
}

// holdersSize estimates the memory of the uid to holder map.
func holdersSize(holders map[types.UID]string) int64 {
	var n int64
	for uid, holder := range holders {
		n += int64(len(uid) + len(holder))
	}
	return n
}

var errUnknownUID = errors.New("the answer names a uid the request does not hold")
