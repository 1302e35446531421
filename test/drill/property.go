package drill

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/clusterclass"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/benchfixture"
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
	// CacheMaxAge is the controller's --variables-cache-max-age: a round
	// waits at least this long (and one refresh interval) after its last
	// event, so a changed answer has been asked again.
	CacheMaxAge time.Duration `json:"cacheMaxAge"`
	// Quiet is how long the controller must reconcile nothing before a
	// round counts as settled.
	Quiet time.Duration `json:"quiet"`
	// Timeout bounds any one wait.
	Timeout time.Duration `json:"timeout"`
}

// DefaultPropertyOptions: 40 ClusterClasses over 6 ExtensionConfigs in 4
// namespaces, rounds of up to 8 events for 10 minutes.
func DefaultPropertyOptions() PropertyOptions {
	return PropertyOptions{Duration: 10 * time.Minute, ClusterClasses: 40, ExtensionConfigs: 6, Namespaces: 4,
		MaxEventsPerRound: 8, MaxSpacing: 700 * time.Millisecond, CacheMaxAge: 4 * time.Second,
		Quiet: 2 * time.Second, Timeout: 2 * time.Minute}
}

// The kinds of event the property drill draws from.
const (
	eventConfigCreate   = "config-create"
	eventConfigDelete   = "config-delete"
	eventConfigSettings = "config-settings"
	eventConfigSelector = "config-selector"
	eventConfigCA       = "config-ca"
	eventNamespaceLabel = "namespace-labels"
	eventHandlerToggle  = "handler-added-or-removed"
	eventAnswerChange   = "answer-change"
	eventClassReference = "clusterclass-reference"
	eventManagerRestart = "manager-restart"
)

// PropertyEvent is one change the drill made, with what it could cost.
type PropertyEvent struct {
	Round  int    `json:"round"`
	Kind   string `json:"kind"`
	Target string `json:"target"`
	// OptimumReconciles are the ClusterClasses the event could change;
	// OptimumCalls the distinct DiscoverVariables requests whose answer
	// it could change. For an event about a config, the controller acts on
	// whoever uses the config when it gets there, so these count every
	// ClusterClass and request in its scope at any point from the event
	// to the end of the round.
	OptimumReconciles int `json:"optimumReconciles"`
	OptimumCalls      int `json:"optimumCalls"`
}

// PropertyRound is the account of one round: its events, what the
// controller did until it was quiet, and the fresh controller's check.
type PropertyRound struct {
	Round  int `json:"round"`
	Events int `json:"events"`
	// Reconciles are the ClusterClass reconciles that succeeded; failed
	// ones (ReconcileErrors) are retried, so the retry does the work.
	Reconciles      int64 `json:"reconciles"`
	ReconcileErrors int64 `json:"reconcileErrors"`
	// Calls are DiscoverVariables calls that reached an extension, less
	// the refreshes that found an answer unchanged (IdleRefreshes): those
	// are the cost of the max age, paid whatever the events.
	Calls         int64 `json:"calls"`
	IdleRefreshes int64 `json:"idleRefreshes"`
	// ChangedRefreshes and FailedRefreshes are the refreshes that found a
	// new answer or an error; they are among Calls.
	ChangedRefreshes int64 `json:"changedRefreshes"`
	FailedRefreshes  int64 `json:"failedRefreshes"`
	// ReconcileBound and CallBound sum the round's events' optima.
	ReconcileBound int `json:"reconcileBound"`
	CallBound      int `json:"callBound"`
	// Settled is the time from the last event until the controller was quiet.
	Settled time.Duration `json:"settled"`
	// FreshWrites are the objects a freshly started controller changed.
	FreshWrites []string `json:"freshWrites,omitempty"`
}

// PropertyReport is what the property drill saw.
type PropertyReport struct {
	Options PropertyOptions `json:"options"`
	// Kinds counts the events by kind.
	Kinds  map[string]int  `json:"kinds"`
	Events []PropertyEvent `json:"events"`
	Rounds []PropertyRound `json:"rounds"`
	Checks int             `json:"checks"`
	Totals PropertyRound   `json:"totals"`
}

// Property runs the property drill: rounds of random events with random
// spacing, each followed by a quiet period. After each, the round's
// reconciles and calls are held to the sum of its events' optima, and a
// freshly started controller, run against the same objects and
// extensions, must find nothing to write.
func Property(ctx context.Context, env Env, o PropertyOptions) (*PropertyReport, error) {
	if o.Seed == 0 {
		o.Seed = uint64(time.Now().UnixNano())
	}
	env.progress("property: seed %d", o.Seed)
	args := []string{"--variables-cache-max-age", o.CacheMaxAge.String(), "--rediscovery-interval", "1h",
		// Calls, refreshes and registration changes are logged at 4: a
		// round above its bound can be read back from the logs.
		"--zap-log-level=4"}
	h, err := setUp(ctx, env, "property", fixtureOptions{
		clusterClasses: o.ClusterClasses, extensionConfigs: o.ExtensionConfigs, namespaces: o.Namespaces,
		selectorEvery: 2, handlerTimeout: 10,
	}, args)
	if err != nil {
		return nil, fmt.Errorf("seed %d: %w", o.Seed, err)
	}
	defer func() { h.tearDown(context.WithoutCancel(ctx)) }()
	p, err := newPropertyWorld(h, o, args)
	if err != nil {
		return nil, fmt.Errorf("seed %d: %w", o.Seed, err)
	}
	report := &PropertyReport{Options: o, Kinds: map[string]int{}}
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
		}
		if err != nil {
			return report, fmt.Errorf("seed %d, round %d: %w", o.Seed, round, err)
		}
		report.Checks++
		report.Rounds = append(report.Rounds, r)
		report.Totals.add(r)
		env.progress("property: round %d: %d events, %d reconciles (bound %d), %d calls (bound %d), settled in %s, %d fresh writes",
			round, r.Events, r.Reconciles, r.ReconcileBound, r.Calls, r.CallBound, r.Settled.Round(time.Millisecond), len(r.FreshWrites))
	}
	return report, nil
}

func (t *PropertyRound) add(r PropertyRound) {
	t.Events += r.Events
	t.Reconciles += r.Reconciles
	t.ReconcileErrors += r.ReconcileErrors
	t.Calls += r.Calls
	t.IdleRefreshes += r.IdleRefreshes
	t.ReconcileBound += r.ReconcileBound
	t.CallBound += r.CallBound
	t.Settled = max(t.Settled, r.Settled)
	t.FreshWrites = append(t.FreshWrites, r.FreshWrites...)
}

// Problems lists the rounds that broke a property.
func (r *PropertyReport) Problems() []string {
	var p []string
	for _, rd := range r.Rounds {
		if rd.Reconciles > int64(rd.ReconcileBound) {
			p = append(p, fmt.Sprintf("seed %d, round %d: %d reconciles, above the events' optimum of %d",
				r.Options.Seed, rd.Round, rd.Reconciles, rd.ReconcileBound))
		}
		if rd.Calls > int64(rd.CallBound) {
			p = append(p, fmt.Sprintf("seed %d, round %d: %d DiscoverVariables calls, above the %d distinct requests the events could change",
				r.Options.Seed, rd.Round, rd.Calls, rd.CallBound))
		}
	}
	for _, w := range r.Totals.FreshWrites {
		p = append(p, fmt.Sprintf("seed %d: %s", r.Options.Seed, w))
	}
	if r.Checks == 0 {
		p = append(p, "no fresh controller ever checked the statuses")
	}
	return p
}

// propertyWorld is the drill's model of what it has made: which configs
// exist, what each serves and admits, and what each ClusterClass uses. The
// optimum of every event is computed from it.
type propertyWorld struct {
	h    *harness
	o    PropertyOptions
	args []string
	rng  *rand.Rand

	exists       []bool
	hasDiscover  []bool
	answer       []int
	baseCA       [][]byte
	extendedCA   []bool
	nextCA       []byte
	flavour      []string
	restarts     int
	retired      counters
	lastCounters counters
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
		p.answer = append(p.answer, 1)
		p.baseCA = append(p.baseCA, e.ca)
		p.extendedCA = append(p.extendedCA, false)
		e.server.SetVariables(sampleextension.DiscoverVariablesHandler, answerOf(1))
	}
	for range f.classes {
		p.flavour = append(p.flavour, flavours[p.rng.IntN(len(flavours))])
	}
	return p, nil
}

// answerOf is what an extension answers at revision n: one variable every
// revision shares and one that names the revision.
func answerOf(n int) []clusterv1.ClusterClassVariable {
	return []clusterv1.ClusterClassVariable{stringVariable("size"), stringVariable("rev" + strconv.Itoa(n))}
}

func (p *propertyWorld) settings(i int) map[string]string {
	return map[string]string{"flavour": p.flavour[i]}
}

func (p *propertyWorld) createClasses(ctx context.Context) error {
	return benchfixture.CreateClusterClasses(ctx, p.h.client, len(p.h.fixture.classes), func(i int) *clusterv1.ClusterClass {
		return p.h.fixture.clusterClass(i, p.settings(i))
	})
}

// usable reports whether config k exists and serves DiscoverVariables.
func (p *propertyWorld) usable(k int) bool { return p.exists[k] && p.hasDiscover[k] }

// referencers are the ClusterClasses using config k, in every namespace.
func (p *propertyWorld) referencers(k int) []int {
	var out []int
	for i, c := range p.h.fixture.classConfig {
		if c == k {
			out = append(out, i)
		}
	}
	return out
}

// admittedReferencers are the referencers of config k whose namespace
// its selector admits.
func (p *propertyWorld) admittedReferencers(k int) []int {
	var out []int
	for _, i := range p.referencers(k) {
		if p.h.fixture.admitted(i) {
			out = append(out, i)
		}
	}
	return out
}

// requests counts the distinct DiscoverVariables requests among classes.
func (p *propertyWorld) requests(classes []int) int { return len(p.requestKeys(classes)) }

// requestKeys are the distinct DiscoverVariables requests among classes:
// one per (config, settings) whose config is usable.
func (p *propertyWorld) requestKeys(classes []int) map[string]bool {
	distinct := map[string]bool{}
	for _, i := range classes {
		if k := p.h.fixture.classConfig[i]; p.usable(k) {
			distinct[strconv.Itoa(k)+"/"+p.flavour[i]] = true
		}
	}
	return distinct
}

// admissions records whether each ClusterClass is admitted, to tell the
// ones an admission change flips.
func (p *propertyWorld) admissions() []bool {
	out := make([]bool, len(p.h.fixture.classes))
	for i := range out {
		out[i] = p.h.fixture.admitted(i)
	}
	return out
}

// flipped are the ClusterClasses whose admission differs from before,
// and the distinct requests of those newly admitted.
func (p *propertyWorld) flipped(before []bool) (reconciles, calls int) {
	var newly []int
	for i, now := range p.admissions() {
		if now != before[i] {
			reconciles++
			if now {
				newly = append(newly, i)
			}
		}
	}
	return reconciles, p.requests(newly)
}

// kinds are the events that can happen now, a restart less often.
func (p *propertyWorld) kinds() []string {
	kinds := []string{eventNamespaceLabel, eventClassReference}
	anyExists, anyDeleted := false, false
	for k := range p.exists {
		anyExists = anyExists || p.exists[k]
		anyDeleted = anyDeleted || !p.exists[k]
	}
	if anyDeleted {
		kinds = append(kinds, eventConfigCreate)
	}
	if anyExists {
		kinds = append(kinds, eventConfigDelete, eventConfigSettings, eventConfigSelector, eventConfigCA, eventHandlerToggle, eventAnswerChange)
	}
	if p.rng.IntN(4) == 0 {
		kinds = append(kinds, eventManagerRestart)
	}
	return kinds
}

// pickConfig picks a config that exists (or, with deleted, one that does not).
func (p *propertyWorld) pickConfig(deleted bool) int {
	var candidates []int
	for k, exists := range p.exists {
		if exists != deleted {
			candidates = append(candidates, k)
		}
	}
	return candidates[p.rng.IntN(len(candidates))]
}

// round makes one round's events, waits until the controller is quiet and
// checks the statuses with a fresh controller.
func (p *propertyWorld) round(ctx context.Context, round int) (PropertyRound, []PropertyEvent, error) {
	r := PropertyRound{Round: round}
	before, err := p.settledCounters(ctx)
	if err != nil {
		return r, nil, err
	}
	var events []PropertyEvent
	// scoped[i] follows events[i] when its optimum depends on who uses a
	// config by the time the controller acts on it.
	var scoped []*scopedOptimum
	grow := func() {
		for _, s := range scoped {
			if s != nil {
				s.grow(p)
			}
		}
	}
	n := 1 + p.rng.IntN(p.o.MaxEventsPerRound)
	for e := range n {
		if e > 0 && p.o.MaxSpacing > 0 {
			if err := pause(ctx, time.Duration(p.rng.Int64N(int64(p.o.MaxSpacing)))); err != nil {
				return r, events, err
			}
		}
		kinds := p.kinds()
		kind := kinds[p.rng.IntN(len(kinds))]
		ev := PropertyEvent{Round: round, Kind: kind}
		var scope *scopedOptimum
		if kind == eventManagerRestart {
			// A restart reconciles everything again, and may repeat the
			// work of the round's earlier events that was in flight.
			ev.OptimumReconciles, ev.OptimumCalls = len(p.h.fixture.classes), p.requests(p.allAdmitted())
			for i := range events {
				ev.OptimumReconciles += events[i].OptimumReconciles
				ev.OptimumCalls += events[i].OptimumCalls
				if scoped[i] != nil {
					ev.OptimumReconciles += len(scoped[i].reconciles)
					ev.OptimumCalls += len(scoped[i].calls)
				}
			}
			ev.Target = "controller"
			if err := p.restart(ctx); err != nil {
				return r, append(events, ev), err
			}
		} else {
			var err error
			if scope, err = p.apply(ctx, &ev); err != nil {
				return r, append(events, ev), fmt.Errorf("%s %s: %w", ev.Kind, ev.Target, err)
			}
		}
		events = append(events, ev)
		scoped = append(scoped, scope)
		grow()
	}
	for i := range events {
		if scoped[i] != nil {
			events[i].OptimumReconciles, events[i].OptimumCalls = len(scoped[i].reconciles), len(scoped[i].calls)
		}
		r.ReconcileBound += events[i].OptimumReconciles
		r.CallBound += events[i].OptimumCalls
	}
	r.Events = len(events)
	if r.Settled, err = p.settle(ctx, time.Now()); err != nil {
		return r, events, err
	}
	after, err := p.settledCounters(ctx)
	if err != nil {
		return r, events, err
	}
	r.Reconciles = after.reconciles - before.reconciles
	r.ReconcileErrors = after.errors - before.errors
	r.IdleRefreshes = after.unchangedRefreshes - before.unchangedRefreshes
	r.Calls = after.calls - before.calls - r.IdleRefreshes
	r.ChangedRefreshes = after.changedRefreshes - before.changedRefreshes
	r.FailedRefreshes = after.failedRefreshes - before.failedRefreshes
	r.FreshWrites, err = p.checkFresh(ctx, round)
	return r, events, err
}

func (p *propertyWorld) allAdmitted() []int {
	var out []int
	for i := range p.h.fixture.classes {
		if p.h.fixture.admitted(i) {
			out = append(out, i)
		}
	}
	return out
}

// scopedOptimum is the optimum of an event that reaches whoever uses a
// config when the controller acts on it, which may be after later events
// of the round changed who that is: every ClusterClass in scope at any
// point from the event to the end of the round, and every request.
type scopedOptimum struct {
	scope      func() (reconcile, call []int)
	reconciles map[int]bool
	calls      map[string]bool
}

func newScope(scope func() (reconcile, call []int)) *scopedOptimum {
	return &scopedOptimum{scope: scope, reconciles: map[int]bool{}, calls: map[string]bool{}}
}

func (s *scopedOptimum) grow(p *propertyWorld) {
	reconcile, call := s.scope()
	for _, i := range reconcile {
		s.reconciles[i] = true
	}
	for key := range p.requestKeys(call) {
		s.calls[key] = true
	}
}

// apply makes one event on the cluster or an extension and fills in its
// target and optimum from the model, or returns the scope its optimum
// follows.
func (p *propertyWorld) apply(ctx context.Context, ev *PropertyEvent) (*scopedOptimum, error) {
	f, c := p.h.fixture, p.h.client
	switch ev.Kind {
	case eventConfigCreate:
		k := p.pickConfig(true)
		ev.Target = f.extensions[k].name
		p.exists[k] = true
		return newScope(func() ([]int, []int) { return p.referencers(k), p.admittedReferencers(k) }), p.createConfig(ctx, k)
	case eventConfigDelete:
		k := p.pickConfig(false)
		ev.Target = f.extensions[k].name
		p.exists[k] = false
		scope := newScope(func() ([]int, []int) { return p.referencers(k), nil })
		return scope, client.IgnoreNotFound(c.Delete(ctx, &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: f.extensions[k].name}}))
	case eventConfigSettings, eventConfigCA:
		k := p.pickConfig(false)
		ev.Target = f.extensions[k].name
		if ev.Kind == eventConfigSettings {
			f.extensions[k].revision++
		} else {
			p.extendedCA[k] = !p.extendedCA[k]
			f.extensions[k].ca = p.baseCA[k]
			if p.extendedCA[k] {
				f.extensions[k].ca = append(slices.Clone(p.baseCA[k]), p.nextCA...)
			}
		}
		scope := newScope(func() ([]int, []int) { a := p.admittedReferencers(k); return a, a })
		return scope, f.updateConfig(ctx, c, k)
	case eventConfigSelector:
		k := p.pickConfig(false)
		before := p.admissions()
		current := f.extensions[k].selector
		next := selectors[p.rng.IntN(len(selectors))]
		for equalSelector(next, current) {
			next = selectors[p.rng.IntN(len(selectors))]
		}
		f.extensions[k].selector = next.DeepCopy()
		ev.Target = fmt.Sprintf("%s -> %s", f.extensions[k].name, metav1.FormatLabelSelector(next))
		ev.OptimumReconciles, ev.OptimumCalls = p.flipped(before)
		return nil, f.updateConfig(ctx, c, k)
	case eventNamespaceLabel:
		name := f.namespaces[p.rng.IntN(len(f.namespaces))]
		before := p.admissions()
		tier := benchfixture.OtherTier(f.labels[name][tierLabel])
		f.labels[name] = map[string]string{tierLabel: tier}
		ev.Target = name + " -> " + tier
		ev.OptimumReconciles, ev.OptimumCalls = p.flipped(before)
		patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"`+tierLabel+`":"`+tier+`"}}}`))
		return nil, c.Patch(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, patch)
	case eventHandlerToggle:
		k := p.pickConfig(false)
		p.hasDiscover[k] = !p.hasDiscover[k]
		ev.Target = fmt.Sprintf("%s serves DiscoverVariables: %t", f.extensions[k].name, p.hasDiscover[k])
		f.extensions[k].server.SetHandlers(p.handlersOf(k))
		// Discovery runs again on any change of the object.
		scope := newScope(func() ([]int, []int) { return p.referencers(k), p.admittedReferencers(k) })
		return scope, p.touchConfig(ctx, k)
	case eventAnswerChange:
		k := p.pickConfig(false)
		p.answer[k]++
		ev.Target = fmt.Sprintf("%s answers rev%d", f.extensions[k].name, p.answer[k])
		f.extensions[k].server.SetVariables(sampleextension.DiscoverVariablesHandler, answerOf(p.answer[k]))
		// The refresh reaches whoever uses the answer by then.
		return newScope(func() ([]int, []int) {
			if !p.hasDiscover[k] {
				return nil, nil
			}
			a := p.admittedReferencers(k)
			return a, a
		}), nil
	case eventClassReference:
		i := p.rng.IntN(len(f.classes))
		f.classConfig[i] = p.rng.IntN(len(f.extensions))
		p.flavour[i] = flavours[p.rng.IntN(len(flavours))]
		ev.Target = fmt.Sprintf("%s -> %s/%s", f.classes[i], f.extensions[f.classConfig[i]].name, p.flavour[i])
		ev.OptimumReconciles = 1
		if f.admitted(i) {
			ev.OptimumCalls = p.requests([]int{i})
		}
		return nil, p.setClassPatch(ctx, i)
	}
	return nil, fmt.Errorf("unknown event kind %q", ev.Kind)
}

func equalSelector(a, b *metav1.LabelSelector) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return metav1.FormatLabelSelector(a) == metav1.FormatLabelSelector(b)
}

// handlersOf is what extension k advertises: every default handler, less
// DiscoverVariables while the drill has removed it.
func (p *propertyWorld) handlersOf(k int) []runtimehooksv1.ExtensionHandler {
	var out []runtimehooksv1.ExtensionHandler
	for _, h := range sampleextension.DefaultHandlers() {
		if h.Name == sampleextension.DiscoverVariablesHandler && !p.hasDiscover[k] {
			continue
		}
		h.TimeoutSeconds = ptr.To[int32](10)
		out = append(out, h)
	}
	return out
}

func (p *propertyWorld) createConfig(ctx context.Context, k int) error {
	e := p.h.fixture.extensions[k]
	// The deletion may still be in flight on the apiserver.
	deadline := time.Now().Add(p.o.Timeout)
	for {
		err := p.h.client.Create(ctx, e.object())
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		if err := pause(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}

// touchConfig changes an annotation of config k: an update that changes
// no registration, after which the controller runs Discovery again.
func (p *propertyWorld) touchConfig(ctx context.Context, k int) error {
	name := p.h.fixture.extensions[k].name
	patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"drill/touched":"`+strconv.FormatInt(time.Now().UnixNano(), 10)+`"}}}`))
	return p.h.client.Patch(ctx, &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: name}}, patch)
}

// setClassPatch rewrites ClusterClass i's patch from the model.
func (p *propertyWorld) setClassPatch(ctx context.Context, i int) error {
	f := p.h.fixture
	cc := &clusterv1.ClusterClass{}
	if err := p.h.client.Get(ctx, f.classes[i], cc); err != nil {
		return err
	}
	base := cc.DeepCopy()
	cc.Spec.Patches = f.clusterClass(i, p.settings(i)).Spec.Patches
	return p.h.client.Patch(ctx, cc, client.MergeFrom(base))
}

// restart stops the controller and starts a new one with the same flags.
func (p *propertyWorld) restart(ctx context.Context) error {
	last, err := p.counters(ctx)
	if err != nil {
		return err
	}
	p.h.controller.Stop()
	p.retired = last
	p.restarts++
	p.h.controller, err = StartController(ctx, p.controllerOptions(fmt.Sprintf("property-controller-%d.log", p.restarts)))
	return err
}

func (p *propertyWorld) controllerOptions(log string) ControllerOptions {
	args := append([]string{"--kube-api-qps", "500", "--kube-api-burst", "1000"}, p.args...)
	return ControllerOptions{Binary: p.h.env.Binary, Kubeconfig: p.h.env.Kubeconfig, Args: args, LogPath: filepath.Join(p.h.env.LogDir, log)}
}

// counters are the cumulative figures the rounds account: the
// controller's summed over every process the drill has run, and the calls
// the extensions served.
type counters struct {
	reconciles, errors, calls                             int64
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
	deadline := time.Now().Add(5 * time.Second)
	last, err := p.counters(ctx)
	for err == nil && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		var c counters
		if c, err = p.counters(ctx); err == nil && c == last {
			return c, nil
		}
		last = c
	}
	return last, err
}

func (p *propertyWorld) counters(ctx context.Context) (counters, error) {
	s, err := p.h.sample(ctx)
	if err != nil {
		return counters{}, err
	}
	return counters{
		reconciles:         p.retired.reconciles + s.Reconciles - s.ReconcileErrors,
		errors:             p.retired.errors + s.ReconcileErrors,
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

// settle waits until a changed answer has had time to be asked again
// since lastEvent, and then until the controller reconciles nothing for
// the quiet period. It returns the time from lastEvent.
func (p *propertyWorld) settle(ctx context.Context, lastEvent time.Time) (time.Duration, error) {
	refreshed := lastEvent.Add(p.o.CacheMaxAge + clusterclass.RefreshIntervalFor(p.o.CacheMaxAge) + 500*time.Millisecond)
	lastMoved, err := waitQuiet(ctx, p.o.Timeout, p.o.Quiet, func() (int64, bool, error) {
		c, err := p.counters(ctx)
		return c.reconciles + c.errors, time.Now().After(refreshed), err
	})
	if err != nil {
		return 0, fmt.Errorf("after the last event: %w", err)
	}
	return lastMoved.Sub(lastEvent), nil
}

// waitQuiet polls read until it reports done and the work it counts has
// not moved for quiet. It returns when the count last moved.
func waitQuiet(ctx context.Context, timeout, quiet time.Duration, read func() (work int64, done bool, err error)) (time.Time, error) {
	var last int64 = -1
	lastMoved := time.Now()
	deadline := time.Now().Add(timeout)
	for {
		work, done, err := read()
		if err != nil {
			return lastMoved, err
		}
		if work != last {
			last, lastMoved = work, time.Now()
		}
		if done && time.Since(lastMoved) >= quiet {
			return lastMoved, nil
		}
		if time.Now().After(deadline) {
			return lastMoved, fmt.Errorf("still working, or not done, after %s", timeout)
		}
		if err := pause(ctx, 200*time.Millisecond); err != nil {
			return lastMoved, err
		}
	}
}
