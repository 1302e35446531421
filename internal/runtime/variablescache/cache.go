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
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	"k8s.io/apimachinery/pkg/types"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// Outcome says how a GetFor was answered.
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

// Options bound a Cache.
type Options struct {
	// MaxAge, when positive, expires entries on top of fingerprint
	// invalidation, for extensions whose answers change on their own.
	MaxAge time.Duration
	// MaxEntries bounds the number of stored answers: storing one more
	// evicts the oldest. Zero means
	// userfacing.DefaultVariablesCacheMaxEntries; there is no unbounded
	// cache, since settings that are no longer used would stay forever.
	MaxEntries int
	// MaxBytes bounds the summed weight of the stored answers: storing
	// evicts the oldest until both bounds hold, and an answer that weighs
	// more than MaxBytes alone is not stored (its callers still get it,
	// and Oversize hears of it). Zero means
	// userfacing.DefaultVariablesCacheMaxBytes: an answer may be 32 MiB on
	// the wire, so a bound in entries alone bounds no memory.
	MaxBytes int64
	// Weigh tells how many bytes of memory an answer holds; nil means
	// Retained.
	Weigh func(v any) int64
	// Oversize, when set, is told of every answer not stored because it
	// weighs more than MaxBytes alone, with its handler and weight: each
	// call for that request then goes to the extension. It must not block.
	Oversize func(handler string, weight int64)
	// FailureBackoff is how long a failed call's error answers every
	// caller of the same key before the next call; it doubles with each
	// consecutive failure up to MaxFailureBackoff. Zero means the defaults.
	FailureBackoff, MaxFailureBackoff time.Duration
	// Equal tells whether two answers are the same, so that a refreshed
	// answer equal to the stored one notifies no user. Nil means never
	// equal.
	Equal func(a, b any) bool
}

// Cache holds answers of type V per handler. It is safe for concurrent use.
type Cache[V any] struct {
	maxAge                            time.Duration
	maxEntries                        int
	maxBytes                          int64
	weigh                             func(any) int64
	oversize                          func(handler string, weight int64)
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
	// bytes is the summed weight of the entries.
	bytes int64
	// failures are the keys whose last call failed, by flight key. Every
	// ClusterClass retries on its own backoff; without this, N of them
	// sharing a failing request would each call the struggling extension.
	failures map[string]*failure
	now      func() time.Time

	equal func(a, b any) bool
	// users are, by entry key, who got their answer from it in their
	// latest use (see GetFor), and userKeys the reverse, to release them.
	users    map[answerKey]map[types.NamespacedName]struct{}
	userKeys map[types.NamespacedName]map[answerKey]struct{}
	// onChange, when set, hears the users of an answer that changed or
	// whose refresh failed.
	onChange func(users []types.NamespacedName)
}

// New returns an empty cache bounded by opts.
func New[V any](opts Options) *Cache[V] {
	maxEntries := opts.MaxEntries
	if maxEntries <= 0 {
		maxEntries = userfacing.DefaultVariablesCacheMaxEntries
	}
	maxBytes := opts.MaxBytes
	if maxBytes <= 0 {
		maxBytes = userfacing.DefaultVariablesCacheMaxBytes
	}
	weigh := opts.Weigh
	if weigh == nil {
		weigh = Retained
	}
	c := &Cache[V]{
		maxAge: opts.MaxAge, maxEntries: maxEntries, maxBytes: maxBytes, weigh: weigh, oversize: opts.Oversize,
		failureBackoff: opts.FailureBackoff, maxFailureBackoff: opts.MaxFailureBackoff,
		handlers: map[string]*handlerEntries[V]{}, failures: map[string]*failure{}, now: time.Now,
		equal: opts.Equal, users: map[answerKey]map[types.NamespacedName]struct{}{}, userKeys: map[types.NamespacedName]map[answerKey]struct{}{},
	}
	if c.failureBackoff <= 0 {
		c.failureBackoff = userfacing.DefaultFailureBackoff
	}
	if c.maxFailureBackoff < c.failureBackoff {
		c.maxFailureBackoff = max(userfacing.DefaultMaxFailureBackoff, c.failureBackoff)
	}
	return c
}

// GetFor returns the answer for (handler, fingerprint, settings), calling
// call at most once for all concurrent and later callers with the same key.
// A failed call is not stored as an answer, but its error answers the same
// key until the failure backoff passes. It asks on behalf of user (the zero
// name: nobody), who is then told, through the function SetOnChange sets,
// when a refresh finds the answer changed or failing, until Release(user).
func (c *Cache[V]) GetFor(ctx context.Context, user types.NamespacedName, handler, fingerprint string, settings map[string]string,
	call func(context.Context) (V, error),
) (V, Outcome, error) {
	settingsKey := canonical(settings)
	c.use(user, answerKey{handler, settingsKey})
	if v, ok := c.lookup(handler, fingerprint, settingsKey); ok {
		return v, Hit, nil
	}
	flightKey := flightKeyOf(handler, fingerprint, settingsKey)
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

// flightKeyOf names one request, for the shared flight and its failure
// backoff: handler, registration and settings, everything an answer
// depends on.
func flightKeyOf(handler, fingerprint, settingsKey string) string {
	return handler + "\x00" + fingerprint + "\x00" + settingsKey
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
			if key.handler == h {
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

// Len is the number of stored answers.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries
}

// Bytes is the summed weight of the stored answers (see Options.Weigh).
func (c *Cache[V]) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}
