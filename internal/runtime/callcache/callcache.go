package callcache

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Outcome says how a Get was answered.
type Outcome string

const (
	// Hit: answered from the cache, no call.
	Hit Outcome = "hit"
	// Shared: joined a call another caller had in flight.
	Shared Outcome = "shared"
	// Called: this caller made the call.
	Called Outcome = "called"
)

// Cache holds answers of type V per handler.
type Cache[V any] struct {
	// MaxAge, when positive, expires entries on top of fingerprint
	// invalidation, for extensions whose answers change on their own.
	MaxAge time.Duration

	group singleflight.Group
	mu    sync.Mutex
	// handlers maps a full handler name to the fingerprint its entries were
	// made under and the entries by settings key.
	handlers map[string]*handlerEntries[V]
	now      func() time.Time
}

type handlerEntries[V any] struct {
	fingerprint string
	bySettings  map[string]entry[V]
}

type entry[V any] struct {
	value V
	at    time.Time
}

// New returns an empty cache.
func New[V any](maxAge time.Duration) *Cache[V] {
	return &Cache[V]{MaxAge: maxAge, handlers: map[string]*handlerEntries[V]{}, now: time.Now}
}

// Get returns the answer for (handler, fingerprint, settings), calling call
// at most once for all concurrent and later callers with the same key.
func (c *Cache[V]) Get(ctx context.Context, handler, fingerprint string, settings map[string]string,
	call func(context.Context) (V, error),
) (V, Outcome, error) {
	settingsKey := canonical(settings)
	if v, ok := c.lookup(handler, fingerprint, settingsKey); ok {
		return v, Hit, nil
	}
	flightKey := handler + "\x00" + fingerprint + "\x00" + settingsKey
	// The shared call must not die with whichever caller started it; the
	// call bounds itself with the handler's timeout.
	shared := context.WithoutCancel(ctx)
	// Only the caller whose function ran made (or found) the answer;
	// singleflight reports "shared" to that caller too.
	outcome := Shared
	result, err, _ := c.group.Do(flightKey, func() (any, error) {
		// A caller that lost the race to the previous flight finds its
		// answer stored here.
		if v, ok := c.lookup(handler, fingerprint, settingsKey); ok {
			outcome = Hit
			return v, nil
		}
		outcome = Called
		v, err := call(shared)
		if err != nil {
			return v, err
		}
		c.store(handler, fingerprint, settingsKey, v)
		return v, nil
	})
	v, _ := result.(V)
	return v, outcome, err
}

// Forget drops every entry of the named handlers.
func (c *Cache[V]) Forget(handlers ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range handlers {
		delete(c.handlers, h)
	}
}

// Len is the number of stored answers.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, h := range c.handlers {
		n += len(h.bySettings)
	}
	return n
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
		delete(c.handlers, handler)
		return zero, false
	}
	e, ok := h.bySettings[settingsKey]
	if !ok {
		return zero, false
	}
	if c.MaxAge > 0 && c.now().Sub(e.at) > c.MaxAge {
		delete(h.bySettings, settingsKey)
		return zero, false
	}
	return e.value, true
}

func (c *Cache[V]) store(handler, fingerprint, settingsKey string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.handlers[handler]
	if !ok || h.fingerprint != fingerprint {
		h = &handlerEntries[V]{fingerprint: fingerprint, bySettings: map[string]entry[V]{}}
		c.handlers[handler] = h
	}
	h.bySettings[settingsKey] = entry[V]{value: v, at: c.now()}
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
