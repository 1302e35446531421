package callcache

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// DefaultMaxEntries is the bound of a cache whose Options leave MaxEntries
// zero. The live set is one answer per distinct (handler, effective
// settings) that ClusterClasses use, a few per extension even on large
// management clusters (the load tool's 1000 ClusterClasses need one per
// ExtensionConfig), so ten thousand holds it with room to spare and only
// cuts what nobody asks for any more.
const DefaultMaxEntries = 10_000

// Outcome says how a Get was answered.
type Outcome string

const (
	// Hit: answered from the cache, no call.
	Hit Outcome = "hit"
	// Shared: joined a call another caller had in flight.
	Shared Outcome = "shared"
	// Called: this caller made the call.
	Called Outcome = "called"
	// FailureShared: answered with the error of a recent failed call for
	// the same key, still within its backoff; no call.
	FailureShared Outcome = "failure_shared"
)

// Defaults of the failure backoff: a failed call is shared with every
// caller of the same key for DefaultFailureBackoff, doubling with each
// consecutive failure up to DefaultMaxFailureBackoff.
const (
	DefaultFailureBackoff    = 500 * time.Millisecond
	DefaultMaxFailureBackoff = 30 * time.Second
)

// Options bound a Cache.
type Options struct {
	// MaxAge, when positive, expires entries on top of fingerprint
	// invalidation, for extensions whose answers change on their own.
	MaxAge time.Duration
	// MaxEntries bounds the number of stored answers: storing one more
	// evicts the oldest. Zero means DefaultMaxEntries; there is no unbounded
	// cache, since settings that are no longer used would stay forever.
	MaxEntries int
	// FailureBackoff is how long a failed call's error answers every
	// caller of the same key before the next call; it doubles with each
	// consecutive failure up to MaxFailureBackoff. Zero means the defaults.
	FailureBackoff, MaxFailureBackoff time.Duration
}

// Cache holds answers of type V per handler. It is safe for concurrent use.
type Cache[V any] struct {
	maxAge                            time.Duration
	maxEntries                        int
	failureBackoff, maxFailureBackoff time.Duration

	group singleflight.Group
	mu    sync.Mutex
	// handlers maps a full handler name to the fingerprint its entries were
	// made under and the entries by settings key.
	handlers map[string]*handlerEntries[V]
	// oldest and newest end the list of every entry in the order stored,
	// which is also the order they expire in: sweeping and eviction both
	// take from the oldest end.
	oldest, newest *entry[V]
	entries        int
	// failures are the keys whose last call failed, by flight key. Every
	// ClusterClass retries on its own backoff; without this, N of them
	// sharing a failing request would each call the struggling extension.
	failures map[string]*failure
	now      func() time.Time
}

// failure is the last error of a key and until when it stands in for calls.
type failure struct {
	handler string
	err     error
	until   time.Time
	// streak counts consecutive failures; each doubles the backoff.
	streak int
}

type handlerEntries[V any] struct {
	fingerprint string
	bySettings  map[string]*entry[V]
}

type entry[V any] struct {
	handler, settingsKey string
	value                V
	at                   time.Time
	older, newer         *entry[V]
}

// New returns an empty cache bounded by opts.
func New[V any](opts Options) *Cache[V] {
	maxEntries := opts.MaxEntries
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	c := &Cache[V]{
		maxAge: opts.MaxAge, maxEntries: maxEntries,
		failureBackoff: opts.FailureBackoff, maxFailureBackoff: opts.MaxFailureBackoff,
		handlers: map[string]*handlerEntries[V]{}, failures: map[string]*failure{}, now: time.Now,
	}
	if c.failureBackoff <= 0 {
		c.failureBackoff = DefaultFailureBackoff
	}
	if c.maxFailureBackoff < c.failureBackoff {
		c.maxFailureBackoff = max(DefaultMaxFailureBackoff, c.failureBackoff)
	}
	return c
}

// Get returns the answer for (handler, fingerprint, settings), calling call
// at most once for all concurrent and later callers with the same key. A
// failed call is not stored as an answer, but its error answers the same
// key until the failure backoff passes.
func (c *Cache[V]) Get(ctx context.Context, handler, fingerprint string, settings map[string]string,
	call func(context.Context) (V, error),
) (V, Outcome, error) {
	settingsKey := canonical(settings)
	if v, ok := c.lookup(handler, fingerprint, settingsKey); ok {
		return v, Hit, nil
	}
	flightKey := handler + "\x00" + fingerprint + "\x00" + settingsKey
	if err := c.recentFailure(flightKey); err != nil {
		var zero V
		return zero, FailureShared, err
	}
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
			c.fail(flightKey, handler, err)
			return v, err
		}
		c.store(handler, fingerprint, settingsKey, v)
		c.mu.Lock()
		delete(c.failures, flightKey)
		c.mu.Unlock()
		return v, nil
	})
	v, _ := result.(V)
	return v, outcome, err
}

// Forget drops every entry and failure of the named handlers.
func (c *Cache[V]) Forget(handlers ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range handlers {
		c.dropHandler(h)
		for key, f := range c.failures {
			if f.handler == h {
				delete(c.failures, key)
			}
		}
	}
}

// recentFailure returns the error of key's last call while its backoff
// lasts.
func (c *Cache[V]) recentFailure(key string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.failures[key]; ok && c.now().Before(f.until) {
		return f.err
	}
	return nil
}

// fail records a failed call of key and doubles its backoff.
func (c *Cache[V]) fail(key, handler string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	f, ok := c.failures[key]
	if !ok {
		// Failures are bounded like answers: drop those whose backoff
		// ended long enough ago that their streak no longer matters.
		if len(c.failures) >= c.maxEntries {
			for k, old := range c.failures {
				if now.Sub(old.until) > c.maxFailureBackoff {
					delete(c.failures, k)
				}
			}
		}
		if len(c.failures) >= c.maxEntries {
			return
		}
		f = &failure{handler: handler}
		c.failures[key] = f
	}
	backoff := c.failureBackoff << min(f.streak, 30)
	if backoff <= 0 || backoff > c.maxFailureBackoff {
		backoff = c.maxFailureBackoff
	}
	f.err, f.until, f.streak = err, now.Add(backoff), f.streak+1
}

// Len is the number of stored answers.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries
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
	if c.expired(e) {
		c.remove(e)
		return zero, false
	}
	return e.value, true
}

func (c *Cache[V]) store(handler, fingerprint, settingsKey string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.handlers[handler]
	if ok && h.fingerprint != fingerprint {
		c.dropHandler(handler)
		ok = false
	}
	if !ok {
		h = &handlerEntries[V]{fingerprint: fingerprint, bySettings: map[string]*entry[V]{}}
		c.handlers[handler] = h
	}
	if old, ok := h.bySettings[settingsKey]; ok {
		c.unlink(old)
	}
	e := &entry[V]{handler: handler, settingsKey: settingsKey, value: v, at: c.now()}
	h.bySettings[settingsKey] = e
	c.link(e)

	// Entries expire in the order they were stored, so the expired ones
	// are all at the oldest end; entries nobody looks up again go here.
	for c.oldest != nil && c.expired(c.oldest) {
		c.remove(c.oldest)
	}
	for c.entries > c.maxEntries {
		c.remove(c.oldest)
	}
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
