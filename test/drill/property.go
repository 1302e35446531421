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

package drill

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/benchfixture"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/quiet"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

// PropertyOptions shape the property drill.
type PropertyOptions struct {
	// Seed drives every random choice; the same seed makes the same events
	// in the same order (their timing on the machine still varies).
	Seed uint64 `json:"seed"`
	// Rounds, when above zero, ends the drill after that many rounds;
	// otherwise rounds run until Duration has passed.
	Rounds   int           `json:"rounds,omitempty"`
	Duration time.Duration `json:"duration"`

	ClusterClasses   int `json:"clusterClasses"`
	ExtensionConfigs int `json:"extensionConfigs"`
	Namespaces       int `json:"namespaces"`
	// MaxEventsPerRound bounds the events of one round (at least one).
	MaxEventsPerRound int `json:"maxEventsPerRound"`
	// MaxSpacing bounds the random pause between two events of a round.
	MaxSpacing time.Duration `json:"maxSpacing"`
	// Quiet is how long the controller must reconcile nothing (no
	// ClusterClass, no ExtensionConfig) before a round counts as settled.
	Quiet time.Duration `json:"quiet"`
	// FailureRoundEvery makes every n-th round a failure round: it first
	// makes Discovery of one more config fail, and then draws its first
	// event and half the others among the settings and CA changes of
	// configs whose Discovery fails; it recovers none. 0 makes none.
	FailureRoundEvery int `json:"failureRoundEvery,omitempty"`
	// Timeout bounds any one wait.
	Timeout time.Duration `json:"timeout"`
}

// DefaultPropertyOptions: 40 ClusterClasses over 6 ExtensionConfigs in 4
// namespaces, rounds of up to 8 events for 10 minutes, every third a
// failure round.
func DefaultPropertyOptions() PropertyOptions {
	return PropertyOptions{Duration: 10 * time.Minute, ClusterClasses: 40, ExtensionConfigs: 6, Namespaces: 4,
		MaxEventsPerRound: 8, MaxSpacing: 700 * time.Millisecond,
		Quiet: 2 * time.Second, Timeout: 2 * time.Minute, FailureRoundEvery: 3}
}

// The kinds of event the property drill draws from.
const (
	eventConfigCreate   = "config-create"
	eventConfigDelete   = "config-delete"
	eventConfigSettings = "config-settings"
	eventConfigSelector = "config-selector"
	eventConfigCA       = "config-ca"
	eventConfigURL      = "config-url"
	eventNamespaceLabel = "namespace-labels"
	eventHandlerToggle  = "handler-added-or-removed"
	eventClassReference = "clusterclass-reference"
	eventManagerRestart = "manager-restart"
	// Discovery of a config starts or stops failing; each asks for
	// Discovery at once, so the controller sees it.
	eventDiscoveryFails    = "discovery-fails"
	eventDiscoveryRecovers = "discovery-recovers"
)

// failingChanges are the spec changes a failure round makes to configs
// whose Discovery fails: new settings take effect all the same, and a new
// CA waits for a Discovery that works with it while calls keep the last
// one that did. A URL is moved only where Discovery works: while it fails,
// calls keep the host that worked, which a fresh start cannot know, and
// each answer names the host it was asked through.
var failingChanges = []string{eventConfigSettings, eventConfigCA}

// Property runs the property drill: rounds of random events with random
// spacing, each followed by a quiet period. After each, the round's
// reconciles and calls are held to the sum of its events' optima, every
// ExtensionConfig's status to what the model says (Discovered False
// exactly while its Discovery fails, with the handlers the last Discovery
// that worked found), and a freshly started controller, run against the
// same objects and extensions, must find nothing to write.
func Property(ctx context.Context, env Env, o PropertyOptions) (*PropertyReport, error) {
	if o.Seed == 0 {
		o.Seed = uint64(time.Now().UnixNano())
	}
	env.progress("property: seed %d", o.Seed)
	// The drop-in discovers every config again at each --sync-period: an
	// hour, longer than any run, so that every Discovery is one an event
	// asked for. Its DiscoverVariables answers live Cluster API's 10
	// minutes, which no flag shortens, so no event changes an extension's
	// answer: a changed answer would show only after that, and a fresh
	// manager, which asks at once, would rewrite what the settled one
	// still serves from its cache, as Cluster API's would.
	args := []string{"--sync-period=1h",
		// Calls, refreshes and registration changes are logged at 4: a
		// round above its bound can be read back from the logs.
		"--v=4"}
	h, err := setUp(ctx, env, "property", fixtureOptions{
		clusterClasses: o.ClusterClasses, extensionConfigs: o.ExtensionConfigs, namespaces: o.Namespaces,
		selectorEvery: 2, handlerTimeout: 10,
		// Answers name the registration they were asked through, so a
		// registration the controller failed to update shows in statuses.
		echoRequests: true,
	}, args)
	if err != nil {
		return nil, fmt.Errorf("seed %d: %w", o.Seed, err)
	}
	defer func() { h.tearDown(context.WithoutCancel(ctx)) }()
	p, err := newPropertyWorld(h, o, args)
	if err != nil {
		return nil, fmt.Errorf("seed %d: %w", o.Seed, err)
	}
	report := &PropertyReport{Options: o, Kinds: map[string]int{}, WhileFailing: map[string]int{}}
	if err := p.createClasses(ctx); err != nil {
		return report, fmt.Errorf("seed %d: %w", o.Seed, err)
	}
	// Round 0 is the set-up: every ClusterClass created, then checked.
	if _, err := p.settle(ctx, time.Now()); err != nil {
		return report, fmt.Errorf("seed %d: set-up: %w", o.Seed, err)
	}
	if report.Totals.FreshWrites, err = p.checkFresh(ctx, 0); err != nil {
		return report, fmt.Errorf("seed %d: set-up check: %w", o.Seed, err)
	}
	report.Checks++
	end := time.Now().Add(o.Duration)
	for round := 1; ; round++ {
		if o.Rounds > 0 && round > o.Rounds || o.Rounds == 0 && time.Now().After(end) {
			break
		}
		r, events, err := p.round(ctx, round)
		report.Events = append(report.Events, events...)
		for _, e := range events {
			report.Kinds[e.Kind]++
			if e.DiscoveryFails && e.Kind != eventDiscoveryFails {
				report.WhileFailing[e.Kind]++
			}
		}
		if err != nil {
			return report, fmt.Errorf("seed %d, round %d: %w", o.Seed, round, err)
		}
		report.Checks++
		report.Rounds = append(report.Rounds, r)
		report.Totals.add(r)
		env.progress("property: round %d: %d events, %d reconciles (bound %d), %d calls (bound %d), settled in %s, %d configs failing Discovery, %d fresh writes",
			round, r.Events, r.Reconciles, r.ReconcileBound, r.Calls, r.CallBound, r.Settled.Round(time.Millisecond), r.FailingConfigs, len(r.FreshWrites))
	}
	return report, nil
}

// propertyWorld is the drill's model of what it has made: which configs
// exist, what each serves and admits, and what each ClusterClass uses. The
// optimum of every event is computed from it.
type propertyWorld struct {
	h    *harness
	o    PropertyOptions
	args []string
	rng  *rand.Rand

	exists []bool
	// hasDiscover is whether extension k advertises DiscoverVariables;
	// recorded whether config k's status records it, as the last Discovery
	// that worked found it; failing whether extension k fails Discovery.
	hasDiscover []bool
	recorded    []bool
	failing     []bool
	baseCA      [][]byte
	extendedCA  []bool
	// registeredCA is extendedCA as config k's handlers are registered
	// with it; proven whether the controller holds a clientConfig of
	// config k that a Discovery worked with. Handlers keep a proven
	// clientConfig while Discovery with a newer one fails (make before
	// break), so a CA change made then costs nothing until the recovery;
	// without one, the spec is registered as it stands.
	registeredCA []bool
	proven       []bool
	nextCA       []byte
	flavour      []string
	restarts     int
	retired      counters
}

// flavours are the patch settings ClusterClasses choose from: two, so
// ClusterClasses of one config share some requests and not others.
var flavours = []string{"x", "y"}

// selectors are the namespaceSelectors a config moves between.
var selectors = []*metav1.LabelSelector{
	nil,
	benchfixture.TierSelector("a"),
	benchfixture.TierSelector("b"),
}

func newPropertyWorld(h *harness, o PropertyOptions, args []string) (*propertyWorld, error) {
	f := h.fixture
	p := &propertyWorld{h: h, o: o, args: args, rng: rand.New(rand.NewPCG(o.Seed, 1))}
	// A CA the extensions never use: appending it changes the bundle, and
	// so the registration, without breaking verification.
	ca, _, _, err := sampleextension.SelfSignedCertificate([]string{"unused.invalid"}, time.Hour)
	if err != nil {
		return nil, err
	}
	p.nextCA = ca
	for _, e := range f.extensions {
		p.exists = append(p.exists, true)
		p.hasDiscover = append(p.hasDiscover, true)
		p.recorded = append(p.recorded, true)
		p.failing = append(p.failing, false)
		p.baseCA = append(p.baseCA, e.ca)
		p.extendedCA = append(p.extendedCA, false)
		p.registeredCA = append(p.registeredCA, false)
		p.proven = append(p.proven, true)
		e.server.SetVariables(sampleextension.DiscoverVariablesHandler, answerOf(1))
	}
	for range f.classes {
		p.flavour = append(p.flavour, flavours[p.rng.IntN(len(flavours))])
	}
	return p, nil
}

func (p *propertyWorld) createClasses(ctx context.Context) error {
	return benchfixture.CreateClusterClasses(ctx, p.h.client, len(p.h.fixture.classes), func(i int) *clusterv1.ClusterClass {
		return p.h.fixture.clusterClass(i, p.settings(i))
	})
}

// counters are the cumulative figures the rounds account: the
// controller's summed over every process the drill has run, and the calls
// the extensions served.
type counters struct {
	reconciles, errors, calls                             int64
	configReconciles                                      int64
	unchangedRefreshes, changedRefreshes, failedRefreshes int64
	// observedCalls are the DiscoverVariables calls the controllers
	// counted as they returned.
	observedCalls int64
}

// settledCounters returns the counters once no DiscoverVariables call is
// in flight, so that a call and the refresh it may be fall into the same
// round: an extension counts a call when it arrives, the controller its
// outcome when the answer is back. A reading that the next one, 100 ms
// later, repeats exactly (the calls served, those the controllers counted,
// and the refreshes) has nothing in flight: a call to these local
// extensions takes a few milliseconds. After 5 seconds of change it
// returns the last reading; the round's bounds then show any call it split.
func (p *propertyWorld) settledCounters(ctx context.Context) (counters, error) {
	c, _, err := quiet.Wait(ctx, quiet.Options{Quiet: 100 * time.Millisecond, Timeout: 5 * time.Second, Interval: 100 * time.Millisecond},
		quiet.Equal[counters], func() (counters, bool, error) {
			now, err := p.counters(ctx)
			return now, true, err
		})
	if errors.Is(err, quiet.ErrTimeout) {
		return c, nil
	}
	return c, err
}

func (p *propertyWorld) counters(ctx context.Context) (counters, error) {
	s, err := p.h.sample(ctx)
	if err != nil {
		return counters{}, err
	}
	return counters{
		reconciles:         p.retired.reconciles + s.Reconciles - s.ReconcileErrors,
		errors:             p.retired.errors + s.ReconcileErrors,
		configReconciles:   p.retired.configReconciles + s.ConfigReconciles,
		calls:              p.servedCalls(),
		unchangedRefreshes: p.retired.unchangedRefreshes + s.UnchangedRefreshes,
		changedRefreshes:   p.retired.changedRefreshes + s.ChangedRefreshes,
		failedRefreshes:    p.retired.failedRefreshes + s.FailedRefreshes,
		observedCalls:      p.retired.observedCalls + s.DiscoverVariablesCalls,
	}, nil
}

// servedCalls counts the DiscoverVariables calls the extensions served:
// counted where they land, not by the controller that made them.
func (p *propertyWorld) servedCalls() int64 {
	var total int64
	for _, e := range p.h.fixture.extensions {
		total += e.server.Calls()["DiscoverVariables/"+sampleextension.DiscoverVariablesHandler]
	}
	return total
}

// settle waits until every status observes its object's generation and
// then until the controller reconciles nothing, neither ClusterClass nor
// ExtensionConfig, for the quiet period. It returns the time from
// lastEvent to the last reconcile.
func (p *propertyWorld) settle(ctx context.Context, lastEvent time.Time) (time.Duration, error) {
	stale := ""
	_, lastMoved, err := quiet.Wait(ctx, quiet.Options{Quiet: p.o.Quiet, Timeout: p.o.Timeout, Interval: 200 * time.Millisecond},
		quiet.Equal[int64], func() (int64, bool, error) {
			c, err := p.counters(ctx)
			if err != nil {
				return 0, false, err
			}
			stale, err = p.staleStatus(ctx)
			return c.reconciles + c.errors + c.configReconciles, stale == "", err
		})
	if err != nil {
		if stale != "" {
			return 0, fmt.Errorf("after the last event: %w (%s)", err, stale)
		}
		return 0, fmt.Errorf("after the last event: %w", err)
	}
	return lastMoved.Sub(lastEvent), nil
}

// staleStatus names an object whose status the controller has not yet
// written for its current spec, or returns "" when there is none: every
// ClusterClass needs a VariablesReady condition and every ExtensionConfig
// a Discovered condition, each observing its object's generation. The
// standalone's rounds waited out its short answer max age, which covered
// this; the drop-in's lasts 10 minutes.
func (p *propertyWorld) staleStatus(ctx context.Context) (string, error) {
	classes := &clusterv1.ClusterClassList{}
	if err := p.h.client.List(ctx, classes); err != nil {
		return "", err
	}
	for i := range classes.Items {
		cc := &classes.Items[i]
		ready := meta.FindStatusCondition(cc.Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition)
		// Not status.observedGeneration: a failed reconcile leaves it.
		if ready == nil || ready.ObservedGeneration != cc.Generation {
			return fmt.Sprintf("ClusterClass %s/%s: generation %d, VariablesReady %v", cc.Namespace, cc.Name, cc.Generation, ready), nil
		}
	}
	configs := &runtimev1.ExtensionConfigList{}
	if err := p.h.client.List(ctx, configs); err != nil {
		return "", err
	}
	for i := range configs.Items {
		ext := &configs.Items[i]
		discovered := meta.FindStatusCondition(ext.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition)
		if discovered == nil || discovered.ObservedGeneration != ext.Generation {
			return fmt.Sprintf("ExtensionConfig %s: generation %d, Discovered %v", ext.Name, ext.Generation, discovered), nil
		}
	}
	return "", nil
}
