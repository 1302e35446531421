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

package variablescache

import (
	"context"
	"encoding/json"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

type handlerEntries[V any] struct {
	fingerprint string
	bySettings  map[string]*entry[V]
}

type entry[V any] struct {
	handler, settingsKey string
	fingerprint          string
	value                V
	// weight is what value holds in memory, as Options.Weigh tells.
	weight       int64
	at           time.Time
	older, newer *entry[V]
	// call asks the extension again, for a refresh.
	call func(context.Context) (V, error)
}

func (c *Cache[V]) lookup(handler, fingerprint, settingsKey string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero V
	h, ok := c.handlers[handler]
	if !ok {
		return zero, false
	}
	if h.fingerprint != fingerprint {
		// The registration changed: nothing stored can be trusted.
		c.dropHandler(handler)
		return zero, false
	}
	e, ok := h.bySettings[settingsKey]
	if !ok {
		return zero, false
	}
	// An answer in use is kept past its age: Refresh asks again and tells
	// its users what changed. One nobody uses just expires.
	if c.expired(e) && len(c.users[answerKey{handler, settingsKey}]) == 0 {
		c.remove(e)
		return zero, false
	}
	return e.value, true
}

// store keeps v as the answer and returns the users to tell when it
// replaced a different answer. With onlyReplace, it stores nothing unless
// an answer under the same fingerprint is still there: a refresh that
// returns after the registration changed must not bring the old one back.
// An answer heavier than the byte bound alone replaces the stored one but
// is not kept, and Oversize hears of it.
func (c *Cache[V]) store(handler, fingerprint, settingsKey string, v V, call func(context.Context) (V, error), onlyReplace bool) []types.NamespacedName {
	// Weighed before the lock: the walk takes time in proportion to the
	// answer's size, and lookups must not wait for it.
	weight := c.weigh(v)
	changed, oversize := c.storeWeighed(handler, fingerprint, settingsKey, v, weight, call, onlyReplace)
	if oversize && c.oversize != nil {
		c.oversize(handler, weight)
	}
	return changed
}

func (c *Cache[V]) storeWeighed(handler, fingerprint, settingsKey string, v V, weight int64, call func(context.Context) (V, error),
	onlyReplace bool,
) (changed []types.NamespacedName, oversize bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.handlers[handler]
	if onlyReplace {
		if !ok || h.fingerprint != fingerprint || h.bySettings[settingsKey] == nil {
			return nil, false
		}
	}
	if ok && h.fingerprint != fingerprint {
		c.dropHandler(handler)
		ok = false
	}
	if ok {
		if old, found := h.bySettings[settingsKey]; found {
			if c.equal == nil || !c.equal(old.value, v) {
				changed = c.usersOf(answerKey{handler, settingsKey})
			}
			c.remove(old)
		}
	}
	// Checked once the old answer is gone, so a refresh that finds it
	// grown past the bound serves nobody the old one.
	if weight > c.maxBytes {
		return changed, true
	}
	h, ok = c.handlers[handler]
	if !ok {
		h = &handlerEntries[V]{fingerprint: fingerprint, bySettings: map[string]*entry[V]{}}
		c.handlers[handler] = h
	}
	e := &entry[V]{handler: handler, settingsKey: settingsKey, fingerprint: fingerprint, value: v, weight: weight, at: c.now(), call: call}
	h.bySettings[settingsKey] = e
	c.link(e)

	// Entries expire in the order they were stored, so the expired ones
	// are all at the oldest end; entries nobody looks up again go here.
	// One in use stops the sweep: Refresh renews it.
	for c.oldest != nil && c.expired(c.oldest) && len(c.users[answerKey{c.oldest.handler, c.oldest.settingsKey}]) == 0 {
		c.remove(c.oldest)
	}
	// The new entry is within both bounds on its own, so this stops
	// before it.
	for c.entries > c.maxEntries || c.bytes > c.maxBytes {
		c.remove(c.oldest)
	}
	return changed, false
}

func (c *Cache[V]) expired(e *entry[V]) bool {
	return c.maxAge > 0 && c.now().Sub(e.at) > c.maxAge
}

// dropHandler removes every entry of a handler.
func (c *Cache[V]) dropHandler(handler string) {
	h, ok := c.handlers[handler]
	if !ok {
		return
	}
	for _, e := range h.bySettings {
		c.unlink(e)
	}
	delete(c.handlers, handler)
}

// remove drops one entry, and its handler once it holds no entry: a
// handler's record must not outlive its answers.
func (c *Cache[V]) remove(e *entry[V]) {
	c.unlink(e)
	h := c.handlers[e.handler]
	delete(h.bySettings, e.settingsKey)
	if len(h.bySettings) == 0 {
		delete(c.handlers, e.handler)
	}
}

// link appends e at the newest end of the list.
func (c *Cache[V]) link(e *entry[V]) {
	e.older, e.newer = c.newest, nil
	if c.newest != nil {
		c.newest.newer = e
	} else {
		c.oldest = e
	}
	c.newest = e
	c.entries++
	c.bytes += e.weight
}

// unlink takes e out of the list; its handler's map is the caller's.
func (c *Cache[V]) unlink(e *entry[V]) {
	if e.older != nil {
		e.older.newer = e.newer
	} else {
		c.oldest = e.newer
	}
	if e.newer != nil {
		e.newer.older = e.older
	} else {
		c.newest = e.older
	}
	e.older, e.newer = nil, nil
	c.entries--
	c.bytes -= e.weight
}

// canonical encodes settings with sorted keys (encoding/json sorts map
// keys), so equal maps give equal keys; nil and empty are the same request.
func canonical(settings map[string]string) string {
	if len(settings) == 0 {
		return "{}"
	}
	data, _ := json.Marshal(settings) // map of strings: cannot fail
	return string(data)
}
