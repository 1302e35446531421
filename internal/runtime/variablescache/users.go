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
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// answerKey names an answer for its users: handler and settings. The
// fingerprint is left out: a registration change drops the handler's
// answers and users alike.
type answerKey struct{ handler, settingsKey string }

// SetOnChange sets who hears of answers that changed or whose refresh
// failed; fn gets the users of the answer (see GetFor) and must not block.
func (c *Cache[V]) SetOnChange(fn func(users []types.NamespacedName)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onChange = fn
}

// Release forgets every answer user used: a ClusterClass calls it before
// each reconcile, which then uses again what it still needs, and when it
// is deleted.
func (c *Cache[V]) Release(user types.NamespacedName) {
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

func (c *Cache[V]) use(user types.NamespacedName, key answerKey) {
	if user == (types.NamespacedName{}) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.users[key] == nil {
		c.users[key] = map[types.NamespacedName]struct{}{}
	}
	c.users[key][user] = struct{}{}
	if c.userKeys[user] == nil {
		c.userKeys[user] = map[answerKey]struct{}{}
	}
	c.userKeys[user][key] = struct{}{}
}

// usersOf lists an answer's users in the order of their "namespace/name";
// c.mu is held.
func (c *Cache[V]) usersOf(key answerKey) []types.NamespacedName {
	out := make([]types.NamespacedName, 0, len(c.users[key]))
	for user := range c.users[key] {
		out = append(out, user)
	}
	slices.SortFunc(out, func(a, b types.NamespacedName) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// recovered clears a key's failure after a successful call and returns
// the users to tell: those of a changed answer, or every user of an answer
// that had failed, whose reconciles still show the failure.
func (c *Cache[V]) recovered(flightKey, handler, settingsKey string, changed []types.NamespacedName) []types.NamespacedName {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, failed := c.failures[flightKey]; failed {
		delete(c.failures, flightKey)
		if len(changed) == 0 {
			return c.usersOf(answerKey{handler, settingsKey})
		}
	}
	return changed
}

func (c *Cache[V]) notify(users []types.NamespacedName) {
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
