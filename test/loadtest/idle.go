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

package loadtest

import (
	"context"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// idleEvent lets one period of periodic work pass with nothing changing,
// and a tenth more for the jitter of the resync. The optimum is no
// reconcile, one Discovery per ExtensionConfig (the sync period is also
// the re-discovery period) and one call per answer in use per 10 minutes
// in the window (DiscoverVariables answers live a fixed 10 minutes, as
// Cluster API's do); Cluster API also reconciles every ClusterClass each
// sync period.
func (r *run) idleEvent(period time.Duration) event {
	e := event{
		name:             "idle, 10 minutes at default periods",
		window:           period + period/10,
		apply:            func(context.Context) (applied, error) { return applied{}, nil },
		optimumDiscovery: func() int { return len(r.fixture.configs) },
	}
	e.optimum = func() (int, int) {
		reconciles, calls := r.answersInUse()
		return reconciles, calls * int(e.window/variablesMaxAge)
	}
	if period != DefaultPeriod {
		e.name = "idle, one period with every period scaled to " + period.String()
		e.note = "stands for 10 minutes at default periods, except that Cluster API's DiscoverVariables cache (and so the drop-in's) " +
			"lives 10 minutes whatever the sync period: their calls show only in a 10-minute period (--idle-period 10m)"
	}
	return e
}

// variablesMaxAge is how long the drop-in keeps a DiscoverVariables
// answer, Cluster API's 10 minutes, which no flag of it changes.
const variablesMaxAge = userfacing.DefaultVariablesCacheMaxAge

// answersInUse is the optimum of an idle max-age interval: no reconcile,
// and one call per distinct DiscoverVariables request a ClusterClass uses
// (every patch of a config shares its settings, so one per config with an
// admitted referencer).
func (r *run) answersInUse() (reconciles, calls int) {
	for i := range r.fixture.configs {
		if r.fixture.anyAdmitted(i) {
			calls++
		}
	}
	return 0, calls
}
