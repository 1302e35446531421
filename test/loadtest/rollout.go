package loadtest

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/variablescache"
)

// rolloutEvents run under a manager whose cached answers are asked again
// after RolloutMaxAge: an idle interval, whose only cost is one call per
// answer in use, and an extension rolled out behind an unchanged
// registration.
func (r *run) rolloutEvents() []event {
	f := r.fixture
	target := f.mostPopular()[0]
	return []event{{
		name: "idle for one max age (answers in use asked again)",
		note: "Cluster API reconciles every ClusterClass at its 10-minute resync",
		apply: func(context.Context) (applied, error) {
			_, want := r.answersInUse()
			base, _ := r.controller.Refreshes()
			return applied{seen: func() (bool, error) {
				all, _ := r.controller.Refreshes()
				return all-base >= float64(want), nil
			}}, nil
		},
		optimum: r.answersInUse,
	}, {
		name: "extension rollout (new DiscoverVariables answer, same registration)",
		note: "Cluster API has no event for it: its ClusterClasses follow at the next resync",
		apply: func(context.Context) (applied, error) {
			f.answerVariables(target, "size", "rolledOut")
			return applied{}, nil
		},
		optimum:   func() (int, int) { return r.affectedByRegistration(target) },
		converged: func(ctx context.Context) (bool, error) { return r.showsVariable(ctx, target, "rolledOut") },
		// Refreshes of unchanged answers while its ClusterClasses converge
		// are the idle row's cost, not the rollout's.
		withoutIdleRefreshes: true,
	}}
}

// idleEvent lets one period of periodic work pass with nothing changing,
// and a tenth more for the jitter of Cluster API's resync. Our optimum is
// no reconcile and one call per answer in use; Cluster API reconciles every
// ClusterClass and runs Discovery of every ExtensionConfig each sync
// period. Both controllers' periods are set to period, so the row stands
// for 10 minutes at their defaults, except for Cluster API's
// DiscoverVariables cache, which lives 10 minutes whatever the period.
func (r *run) idleEvent(period time.Duration) event {
	e := event{
		name:    "idle, 10 minutes at default periods",
		window:  period + period/10,
		apply:   func(context.Context) (applied, error) { return applied{}, nil },
		optimum: r.answersInUse,
		// The rediscovery interval (Cluster API's sync period) is the
		// period: each config once.
		optimumDiscovery: func() discoveryCost { return sameUnderEither(len(r.fixture.configs)) },
	}
	if r.opts.DiscoveryOptimum == DiscoverOnEveryChange {
		// The drop-in, as Cluster API, keeps DiscoverVariables answers
		// for a fixed 10 minutes whatever the period: each answer in use
		// is asked again once per 10 minutes in the window.
		e.optimum = func() (int, int) {
			reconciles, calls := r.answersInUse()
			return reconciles, calls * int(e.window/dropInVariablesMaxAge)
		}
	}
	if period != DefaultPeriod {
		e.name = "idle, one period with every period scaled to " + period.String()
		e.note = "stands for 10 minutes at default periods, except that Cluster API's DiscoverVariables cache (and so the drop-in's) " +
			"lives 10 minutes whatever the sync period: their calls show only in a 10-minute period (--idle-period 10m)"
	}
	return e
}

// dropInVariablesMaxAge is how long the drop-in keeps a DiscoverVariables
// answer, Cluster API's 10 minutes, which no flag of it changes.
const dropInVariablesMaxAge = 10 * time.Minute

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

// refreshes counts every answer asked again, whatever the outcome.
func refreshes() float64 {
	total := 0.0
	for _, outcome := range []variablescache.RefreshOutcome{variablescache.RefreshUnchanged, variablescache.RefreshChanged, variablescache.RefreshFailed} {
		total += testutil.ToFloat64(metrics.VariablesRefreshes.WithLabelValues(string(outcome)))
	}
	return total
}

// unchangedRefreshes counts the answers asked again that came back the same.
func unchangedRefreshes() float64 {
	return testutil.ToFloat64(metrics.VariablesRefreshes.WithLabelValues(string(variablescache.RefreshUnchanged)))
}
