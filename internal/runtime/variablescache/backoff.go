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
	"time"
)

// failure is the last error of a key and until when it stands in for calls.
type failure struct {
	handler string
	err     error
	until   time.Time
	// streak counts consecutive failures; each doubles the backoff.
	streak int
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
