package loadtest

import "fmt"

// DiscoveryOptimum names which Discovery calls an event should cost: what
// the controller measured promises, since the standalone controller and
// the drop-in promise different things.
type DiscoveryOptimum string

const (
	// DiscoverWhenAnswerCanChange is the standalone controller's optimum:
	// Discovery only when what its answer depends on changes (an endpoint,
	// a CA, an extension asked to rediscover), and each config once per
	// rediscovery interval.
	DiscoverWhenAnswerCanChange DiscoveryOptimum = "when-answer-can-change"
	// DiscoverOnEveryChange is the drop-in's, Cluster API's for what users
	// do: one Discovery per ExtensionConfig created or updated (spec,
	// labels or annotations) and per status another writer changed, none
	// for a status the controller wrote itself, a Namespace or a
	// ClusterClass, and each config once per sync period.
	DiscoverOnEveryChange DiscoveryOptimum = "on-every-change"
)

// Describe says in one line what the optimum counts, for reports.
func (o DiscoveryOptimum) Describe() string {
	switch o {
	case DiscoverOnEveryChange, "":
		return "optimum Discovery is Cluster API's for what users do (the drop-in's): one per ExtensionConfig created or updated " +
			"(spec, labels or annotations) and per status another writer changed; none for the controller's own status writes, " +
			"a Namespace or a ClusterClass; each config once per period"
	case DiscoverWhenAnswerCanChange:
		return "optimum Discovery is the standalone controller's: only when what the answer depends on changes (endpoint, CA, " +
			"an extension asked to rediscover); each config once per rediscovery interval"
	default:
		return fmt.Sprintf("optimum Discovery %q is unknown", string(o))
	}
}

// Validate rejects a name that is none of the optima.
func (o DiscoveryOptimum) Validate() error {
	switch o {
	case DiscoverWhenAnswerCanChange, DiscoverOnEveryChange, "":
		return nil
	}
	return fmt.Errorf("unknown Discovery optimum %q (want %s or %s)", string(o), DiscoverWhenAnswerCanChange, DiscoverOnEveryChange)
}

// orDefault is o, or Cluster API's when o is unset: the shared
// controllers discover as Cluster API's do, in every binary.
func (o DiscoveryOptimum) orDefault() DiscoveryOptimum {
	if o == "" {
		return DiscoverOnEveryChange
	}
	return o
}

// discoveryCost is what an event should cost in Discovery calls under each
// optimum, side by side so that an event states both.
type discoveryCost struct {
	whenAnswerCanChange, onEveryChange int
}

// under is the cost under optimum o.
func (c discoveryCost) under(o DiscoveryOptimum) int {
	if o.orDefault() == DiscoverOnEveryChange {
		return c.onEveryChange
	}
	return c.whenAnswerCanChange
}

// sameUnderEither is a cost both optima agree on.
func sameUnderEither(n int) discoveryCost {
	return discoveryCost{whenAnswerCanChange: n, onEveryChange: n}
}
