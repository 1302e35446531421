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

package registry

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Stage is how far a Gate has opened. Stages open in order, each once.
type Stage int

const (
	// WarmedUp opens once the handlers every ExtensionConfig's status
	// recorded at start are registered, on every replica: before that a
	// ClusterClass reconcile would mistake a handler not yet loaded for a
	// missing one. /readyz waits for it.
	WarmedUp Stage = iota
	// Rebuilt opens once this replica, as leader, has made the registry
	// hold what the ExtensionConfigs record now. Both controllers'
	// reconciles wait for it: a standby's registry is only as fresh as its
	// start, and a registration made before the rebuild could be undone by
	// the older status it lists.
	Rebuilt
)

// Gate is when the registry may be relied on, and the one place that says
// so. WarmedUp and Rebuilt open on events (Open); extension calls wait for
// more (Err): Rebuilt, and then the first successful Discovery as leader
// of every config the rebuild found with no recorded handlers, for at most
// the time given to AwaitFirstDiscovery. It is safe for concurrent use.
type Gate struct {
	opened [Rebuilt + 1]chan struct{}
	once   [Rebuilt + 1]sync.Once

	mu sync.Mutex
	// cause is why the rebuild as leader has not finished, when a list of
	// ExtensionConfigs has failed.
	cause error
	// pending are the configs the rebuild found with no recorded handlers
	// (never discovered, or not since their extension came), until their
	// first Discovery as leader has succeeded, they are gone or can have
	// no handler, or pendingUntil passes.
	pending      map[string]bool
	pendingUntil time.Time
}

// ErrNotCurrent is what every error of Err wraps: the text after it, if
// any, names what the gate waits for besides the rebuild as leader.
var ErrNotCurrent = errors.New("the handler registry is not current: this replica has not rebuilt it from the ExtensionConfigs since it took the lead")

func newGate() *Gate {
	g := &Gate{}
	for i := range g.opened {
		g.opened[i] = make(chan struct{})
	}
	return g
}

// Open opens a stage. It is idempotent. Opening Rebuilt forgets why an
// earlier list failed.
func (g *Gate) Open(s Stage) {
	if s == Rebuilt {
		g.mu.Lock()
		g.cause = nil
		g.mu.Unlock()
	}
	g.once[s].Do(func() { close(g.opened[s]) })
}

// Done returns a channel that is closed once s is open.
func (g *Gate) Done(s Stage) <-chan struct{} { return g.opened[s] }

// IsOpen reports whether s is open.
func (g *Gate) IsOpen(s Stage) bool {
	select {
	case <-g.opened[s]:
		return true
	default:
		return false
	}
}

// ListFailed records why the rebuild as leader has not finished yet (a
// list of ExtensionConfigs that kube-apiserver refused or did not answer),
// for Err to name until Rebuilt opens.
func (g *Gate) ListFailed(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cause = err
}

// AwaitFirstDiscovery makes Err wait, for at most timeout, until each
// named config has been discovered (Discovered) since this replica took
// the lead. A Discovery that fails leaves the config pending: a call made
// meanwhile would skip a blocking hook of a config this replica never saw
// answer.
func (g *Gate) AwaitFirstDiscovery(names []string, timeout time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending = make(map[string]bool, len(names))
	for _, name := range names {
		g.pending[name] = true
	}
	g.pendingUntil = time.Now().Add(timeout)
}

// Discovered records that a config's Discovery has succeeded as leader,
// and status records it, or that there is nothing to wait for: the config
// is gone, being deleted, paused, another manager's, or its
// namespaceSelector is invalid.
func (g *Gate) Discovered(extensionConfig string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.pending, extensionConfig)
}

// Err returns nil once extension calls may go out: Rebuilt is open and
// every config AwaitFirstDiscovery named has been discovered or its time
// is up. Otherwise it returns an error wrapping ErrNotCurrent that names
// what the gate waits for: the list that failed, or the configs. A call
// made before could skip a hook whose config this replica never saw, or
// send old settings; a config not yet discovered would be skipped the same
// way, where Cluster API's warm-up discovers it before any call.
func (g *Gate) Err() error {
	g.mu.Lock()
	cause := g.cause
	var waiting []string
	if time.Now().Before(g.pendingUntil) {
		for name := range g.pending {
			waiting = append(waiting, name)
		}
	}
	g.mu.Unlock()
	if !g.IsOpen(Rebuilt) {
		if cause == nil {
			return ErrNotCurrent
		}
		return fmt.Errorf("%w: %w", ErrNotCurrent, cause)
	}
	if len(waiting) > 0 {
		sort.Strings(waiting)
		return fmt.Errorf("%w: waiting for the first Discovery as leader of ExtensionConfigs that record no handlers: %s",
			ErrNotCurrent, strings.Join(waiting, ", "))
	}
	return nil
}
