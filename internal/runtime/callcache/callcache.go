package callcache

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
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
	// Equal tells whether two answers are the same, so that a refreshed
	// answer equal to the stored one notifies no user. Nil means never
	// equal.
	Equal func(a, b any) bool
}

// RefreshOutcome says what a refresh of one answer found.
type RefreshOutcome string

const (
	// RefreshUnchanged: the extension answered the same.
	RefreshUnchanged RefreshOutcome = "unchanged"
	// RefreshChanged: the answer differs; its users were told.
	RefreshChanged RefreshOutcome = "changed"
	// RefreshFailed: the call failed; its users were told, and see the
	// failure until it passes.
	RefreshFailed RefreshOutcome = "failed"
)

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

	equal func(a, b any) bool
	// users are, by entry key, who got their answer from it in their
	// latest use (see GetFor), and userKeys the reverse, to release them.
	users    map[string]map[string]struct{}
	userKeys map[string]map[string]struct{}
	// onChange, when set, hears the users of an answer that changed or
	// whose refresh failed.
	onChange func(users []string)
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
	fingerprint          string
	value                V
	at                   time.Time
	older, newer         *entry[V]
	// call asks the extension again, for a refresh.
	call func(context.Context) (V, error)
}

// usersKey names an answer for its users: handler and settings. The
// fingerprint is left out: a registration change drops the handler's
// answers and users alike.
func usersKey(handler, settingsKey string) string { return handler + "\x00" + settingsKey }

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
		equal: opts.Equal, users: map[string]map[string]struct{}{}, userKeys: map[string]map[string]struct{}{},
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
	return c.GetFor(ctx, "", handler, fingerprint, settings, call)
}

// GetFor is Get on behalf of user (empty: nobody), who is then told, through
// the function SetOnChange sets, when a refresh finds the answer changed or
// failing, until Release(user).
func (c *Cache[V]) GetFor(ctx context.Context, user, handler, fingerprint string, settings map[string]string,
	call func(context.Context) (V, error),
) (V, Outcome, error) {
	settingsKey := canonical(settings)
	c.use(user, usersKey(handler, settingsKey))
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
		c.notify(c.recovered(flightKey, handler, settingsKey, c.store(handler, fingerprint, settingsKey, v, call, false)))
		return v, nil
	})
	v, _ := result.(V)
	return v, outcome, err
}

// Forget drops every entry, failure and user of the named handlers.
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
		for key, users := range c.users {
			if strings.HasPrefix(key, h+"\x00") {
				for user := range users {
					delete(c.userKeys[user], key)
					if len(c.userKeys[user]) == 0 {
						delete(c.userKeys, user)
					}
				}
				delete(c.users, key)
			}
		}
	}
}

// SetOnChange sets who hears of answers that changed or whose refresh
// failed; fn gets the users of the answer (see GetFor) and must not block.
func (c *Cache[V]) SetOnChange(fn func(users []string)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onChange = fn
}

// Release forgets every answer user used: a ClusterClass calls it before
// each reconcile, which then uses again what it still needs, and when it
// is deleted.
func (c *Cache[V]) Release(user string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for key := range c.userKeys[user] {
		delete(c.users[key], user)
		if len(c.users[key]) == 0 {
			delete(c.users, key)
		}
	}
	delete(c.userKeys, user)
}

// Users is how many users the stored answers have, for tests and gauges.
func (c *Cache[V]) Users() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.userKeys)
}

func (c *Cache[V]) use(user, key string) {
	if user == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.users[key] == nil {
		c.users[key] = map[string]struct{}{}
	}
	c.users[key][user] = struct{}{}
	if c.userKeys[user] == nil {
		c.userKeys[user] = map[string]struct{}{}
	}
	c.userKeys[user][key] = struct{}{}
}

// usersOf lists an answer's users; c.mu is held.
func (c *Cache[V]) usersOf(key string) []string {
	out := make([]string, 0, len(c.users[key]))
	for user := range c.users[key] {
		out = append(out, user)
	}
	sort.Strings(out)
	return out
}

// recovered clears a key's failure after a successful call and returns
// the users to tell: those of a changed answer, or every user of an answer
// that had failed, whose reconciles still show the failure.
func (c *Cache[V]) recovered(flightKey, handler, settingsKey string, changed []string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, failed := c.failures[flightKey]; failed {
		delete(c.failures, flightKey)
		if len(changed) == 0 {
			return c.usersOf(usersKey(handler, settingsKey))
		}
	}
	return changed
}

func (c *Cache[V]) notify(users []string) {
	if len(users) == 0 {
		return
	}
	c.mu.Lock()
	fn := c.onChange
	c.mu.Unlock()
	if fn != nil {
		fn(users)
	}
}

// RefreshEach asks again, once each, for every answer in use that is older
// than MaxAge, and tells record what each found as soon as its call
// returns, so that what is counted of a refresh in progress never lags
// behind the calls it made by more than the one in flight. A changed
// answer replaces the stored one and its users are told; an unchanged one
// is kept, renewed, and tells nobody; a failed call keeps the answer out of
// use for the failure backoff, like any failed call, and its users are
// told, so that they say so. Answers nobody uses are left to expire. Calls
// run one at a time: their number per interval is the number of distinct
// requests.
func (c *Cache[V]) RefreshEach(ctx context.Context, record func(RefreshOutcome)) {
	if c.maxAge <= 0 {
		return
	}
	type due struct {
		handler, fingerprint, settingsKey string
		call                              func(context.Context) (V, error)
	}
	var work []due
	c.mu.Lock()
	for e := c.oldest; e != nil && c.expired(e); e = e.newer {
		if len(c.users[usersKey(e.handler, e.settingsKey)]) > 0 && e.call != nil {
			work = append(work, due{e.handler, e.fingerprint, e.settingsKey, e.call})
		}
	}
	c.mu.Unlock()
	for _, d := range work {
		if ctx.Err() != nil {
			break
		}
		// The pass calls one answer at a time. Meanwhile a user may have
		// asked for a due answer itself (after a sweep dropped it, or a
		// registration change): one call per answer per max age, so an
		// answer no longer due, or gone, is not asked again here.
		if !c.stillDue(d.handler, d.fingerprint, d.settingsKey) {
			continue
		}
		flightKey := d.handler + "\x00" + d.fingerprint + "\x00" + d.settingsKey
		var users []string
		outcome := RefreshUnchanged
		_, _, _ = c.group.Do(flightKey, func() (any, error) {
			v, err := d.call(context.WithoutCancel(ctx))
			if err != nil {
				c.fail(flightKey, d.handler, err)
				c.mu.Lock()
				if h, ok := c.handlers[d.handler]; ok && h.fingerprint == d.fingerprint {
					if e, ok := h.bySettings[d.settingsKey]; ok {
						c.remove(e)
					}
				}
				users = c.usersOf(usersKey(d.handler, d.settingsKey))
				c.mu.Unlock()
				outcome = RefreshFailed
				return nil, err
			}
			if users = c.store(d.handler, d.fingerprint, d.settingsKey, v, d.call, true); len(users) > 0 {
				outcome = RefreshChanged
			}
			users = c.recovered(flightKey, d.handler, d.settingsKey, users)
			return v, nil
		})
		record(outcome)
		c.notify(users)
	}
}

// stillDue reports whether the answer for handler and settingsKey under
// fingerprint is still cached and past its max age.
func (c *Cache[V]) stillDue(handler, fingerprint, settingsKey string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.handlers[handler]
	if !ok || h.fingerprint != fingerprint {
		return false
	}
	e, ok := h.bySettings[settingsKey]
	return ok && c.expired(e)
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
	// An answer in use is kept past its age: Refresh asks again and tells
	// its users what changed. One nobody uses just expires.
	if c.expired(e) && len(c.users[usersKey(handler, settingsKey)]) == 0 {
		c.remove(e)
		return zero, false
	}
	return e.value, true
}

// store keeps v as the answer and returns the users to tell when it
// replaced a different answer. With onlyReplace, it stores nothing unless
// an answer under the same fingerprint is still there: a refresh that
// returns after the registration changed must not bring the old one back.
func (c *Cache[V]) store(handler, fingerprint, settingsKey string, v V, call func(context.Context) (V, error), onlyReplace bool) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.handlers[handler]
	if onlyReplace {
		if !ok || h.fingerprint != fingerprint || h.bySettings[settingsKey] == nil {
			return nil
		}
	}
	if ok && h.fingerprint != fingerprint {
		c.dropHandler(handler)
		ok = false
	}
	if !ok {
		h = &handlerEntries[V]{fingerprint: fingerprint, bySettings: map[string]*entry[V]{}}
		c.handlers[handler] = h
	}
	var changed []string
	if old, ok := h.bySettings[settingsKey]; ok {
		if c.equal == nil || !c.equal(old.value, v) {
			changed = c.usersOf(usersKey(handler, settingsKey))
		}
		c.unlink(old)
	}
	e := &entry[V]{handler: handler, settingsKey: settingsKey, fingerprint: fingerprint, value: v, at: c.now(), call: call}
	h.bySettings[settingsKey] = e
	c.link(e)

	// Entries expire in the order they were stored, so the expired ones
	// are all at the oldest end; entries nobody looks up again go here.
	// One in use stops the sweep: Refresh renews it.
	for c.oldest != nil && c.expired(c.oldest) && len(c.users[usersKey(c.oldest.handler, c.oldest.settingsKey)]) == 0 {
		c.remove(c.oldest)
	}
	for c.entries > c.maxEntries {
		c.remove(c.oldest)
	}
	return changed
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
