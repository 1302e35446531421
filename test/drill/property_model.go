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
	"slices"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// answerOf is what an extension answers at revision n: one variable every
// revision shares and one that names the revision.
func answerOf(n int) []clusterv1.ClusterClassVariable {
	return []clusterv1.ClusterClassVariable{stringVariable("size"), stringVariable("rev" + strconv.Itoa(n))}
}

func (p *propertyWorld) settings(i int) map[string]string {
	return map[string]string{"flavour": p.flavour[i]}
}

// usable reports whether config k exists and its status records
// DiscoverVariables: the controller registers what status records, even
// while Discovery fails.
func (p *propertyWorld) usable(k int) bool { return p.exists[k] && p.recorded[k] }

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
	if p.anyConfig(p.deleted) {
		kinds = append(kinds, eventConfigCreate)
	}
	if p.anyConfig(p.existing) {
		kinds = append(kinds, eventConfigDelete, eventConfigSettings, eventConfigSelector, eventConfigCA)
	}
	if p.anyConfig(p.discovers) {
		kinds = append(kinds, eventConfigURL)
	}
	if p.anyConfig(p.toggles) {
		kinds = append(kinds, eventHandlerToggle)
	}
	if p.anyConfig(p.discovers) {
		kinds = append(kinds, eventDiscoveryFails)
	}
	if p.anyConfig(p.fails) {
		kinds = append(kinds, eventDiscoveryRecovers)
	}
	if p.rng.IntN(4) == 0 {
		kinds = append(kinds, eventManagerRestart)
	}
	return kinds
}

// next draws the e-th event of a round: its kind and, for an event about
// a config, which one (otherwise -1). A failure round's first event makes
// Discovery of one more config fail; its second, and half the others,
// change the settings or CA of a config whose Discovery fails; and it
// recovers none, so the fresh check sees them fail.
func (p *propertyWorld) next(failureRound bool, e int) (kind string, config int) {
	if failureRound {
		if e == 0 && p.anyConfig(p.discovers) {
			return eventDiscoveryFails, p.pickConfigWhere(p.discovers)
		}
		if (e <= 1 || p.rng.IntN(2) == 0) && p.anyConfig(p.fails) {
			return failingChanges[p.rng.IntN(len(failingChanges))], p.pickConfigWhere(p.fails)
		}
	}
	kinds := p.kinds()
	if failureRound {
		kinds = slices.DeleteFunc(kinds, func(kind string) bool { return kind == eventDiscoveryRecovers })
	}
	kind = kinds[p.rng.IntN(len(kinds))]
	return kind, p.configFor(kind)
}

// configFor picks the config an event of kind is about, or -1 for an
// event about none.
func (p *propertyWorld) configFor(kind string) int {
	switch kind {
	case eventConfigCreate:
		return p.pickConfigWhere(p.deleted)
	case eventDiscoveryFails, eventConfigURL:
		return p.pickConfigWhere(p.discovers)
	case eventDiscoveryRecovers:
		return p.pickConfigWhere(p.fails)
	case eventConfigDelete, eventConfigSettings, eventConfigSelector, eventConfigCA:
		return p.pickConfigWhere(p.existing)
	case eventHandlerToggle:
		return p.pickConfigWhere(p.toggles)
	}
	return -1
}

// The sides of a config the events pick from.
func (p *propertyWorld) existing(k int) bool  { return p.exists[k] }
func (p *propertyWorld) deleted(k int) bool   { return !p.exists[k] }
func (p *propertyWorld) discovers(k int) bool { return p.exists[k] && !p.failing[k] }
func (p *propertyWorld) fails(k int) bool     { return p.exists[k] && p.failing[k] }

// toggles is the side whose extension may add or remove its
// DiscoverVariables handler: an existing config, but not one whose
// Discovery fails while it serves the handler. Removing it there changes
// no registration, so the drop-in answers from the answers it keeps for
// Cluster API's 10 minutes, while a fresh one calls and finds no handler:
// an answer changed behind a registration, as Cluster API's would serve
// it too. Adding it there is kept: nothing uses a handler not registered.
func (p *propertyWorld) toggles(k int) bool {
	return p.exists[k] && (!p.failing[k] || !p.hasDiscover[k])
}

// anyConfig reports whether some config is on side.
func (p *propertyWorld) anyConfig(side func(k int) bool) bool {
	for k := range p.exists {
		if side(k) {
			return true
		}
	}
	return false
}

// pickConfigWhere picks a config on side; there must be one.
func (p *propertyWorld) pickConfigWhere(side func(k int) bool) int {
	var candidates []int
	for k := range p.exists {
		if side(k) {
			candidates = append(candidates, k)
		}
	}
	return candidates[p.rng.IntN(len(candidates))]
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

// specChanged models a change of config k's settings, CA or URL. New
// settings are registered at once, whether Discovery works or not. A new
// clientConfig is registered once a Discovery with it works; while
// Discovery fails, the handlers keep the proven one, and the change costs
// nothing until the recovery (see recovered). A controller that holds no
// proven clientConfig registers the spec as it stands.
func (p *propertyWorld) specChanged(k int, kind string) *scopedOptimum {
	switch {
	case !p.failing[k]:
		p.registeredCA[k], p.proven[k] = p.extendedCA[k], true
	case !p.proven[k]:
		p.registeredCA[k] = p.extendedCA[k]
	case kind != eventConfigSettings:
		return nil
	}
	return newScope(func() ([]int, []int) { a := p.admittedReferencers(k); return a, a })
}

// recovered models config k's Discovery working again: what changed while
// it failed takes effect now, a handler added or removed, or a CA.
func (p *propertyWorld) recovered(k int) *scopedOptimum {
	p.failing[k] = false
	handlerChanged := p.recorded[k] != p.hasDiscover[k]
	caChanged := p.registeredCA[k] != p.extendedCA[k]
	p.recorded[k], p.registeredCA[k], p.proven[k] = p.hasDiscover[k], p.extendedCA[k], true
	switch {
	case handlerChanged:
		return newScope(func() ([]int, []int) { return p.referencers(k), p.admittedReferencers(k) })
	case caChanged:
		return newScope(func() ([]int, []int) { a := p.admittedReferencers(k); return a, a })
	}
	return nil
}

// freshStart models a controller started afresh: it registers every
// config's spec as it stands, and holds as proven only what a status says
// Discovery worked with, which a config whose Discovery fails does not.
func (p *propertyWorld) freshStart() {
	for k := range p.exists {
		p.registeredCA[k], p.proven[k] = p.extendedCA[k], !p.failing[k]
	}
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

func equalSelector(a, b *metav1.LabelSelector) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return metav1.FormatLabelSelector(a) == metav1.FormatLabelSelector(b)
}
