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

	"k8s.io/apimachinery/pkg/types"
)

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
		if len(c.users[answerKey{e.handler, e.settingsKey}]) > 0 && e.call != nil {
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
		flightKey := flightKeyOf(d.handler, d.fingerprint, d.settingsKey)
		var users []types.NamespacedName
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
				users = c.usersOf(answerKey{d.handler, d.settingsKey})
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
