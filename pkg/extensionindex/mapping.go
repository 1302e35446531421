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

package extensionindex

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// Mapper turns registration and Namespace changes into the ClusterClass
// requests they can affect. Reader should be a manager's cache with the
// indexes of IndexClusterClasses registered and Namespace metadata
// available: every lookup is then served from memory.
type Mapper struct {
	Reader client.Reader
	// Applied, when set, says whether a ClusterClass was last reconciled as
	// admitted by an ExtensionConfig's namespaceSelector. Admission flips
	// are then decided against it, not against a "before" recomputed from
	// the cache, which may already have moved: a Namespace relabelled and
	// a selector changed in between can each look like no flip on its own.
	Applied AppliedAdmission
}

// AppliedAdmission reports whether ClusterClass cc was admitted by config
// when last reconciled, and false for known when there is no record.
type AppliedAdmission func(cc types.NamespacedName, config string) (admitted, known bool)

// flipped decides whether cc's admission by config changed: between
// before and after, or against what was last applied when that is known.
// Both count: a record is written only when its reconcile ends, so an
// event that lands while that reconcile runs is still an edge to follow.
func (m Mapper) flipped(cc types.NamespacedName, config string, before, after bool) bool {
	if before != after {
		return true
	}
	if m.Applied != nil {
		if applied, known := m.Applied(cc, config); known {
			return applied != after
		}
	}
	return false
}

// RequestsForChanges returns, each once, the ClusterClasses a set of handler
// changes can affect:
//   - Added or Removed: every ClusterClass referencing the handler (it goes
//     from "not registered" to resolved, or back);
//   - Changed: those referencing it from a namespace admitted before or
//     after (elsewhere no call is made either way);
//   - SelectorChanged: those whose namespace's admission flipped, with a
//     nil selector admitting none, as in Cluster API (nil to {} flips
//     every namespace).
//
// A ClusterClass whose Namespace cannot be read (not in the cache yet, or
// gone) is included: its reconcile decides, and the others are still mapped.
func (m Mapper) RequestsForChanges(ctx context.Context, changes []registration.Change) ([]reconcile.Request, error) {
	out := requestSet{}
	namespaces := namespaceLabels{reader: m.Reader}
	for _, change := range changes {
		list := &clusterv1.ClusterClassList{}
		if err := m.Reader.List(ctx, list, client.MatchingFields{ByHandler: change.Handler}); err != nil {
			return nil, fmt.Errorf("list ClusterClasses referencing %s: %w", change.Handler, err)
		}
		for i := range list.Items {
			if m.affects(ctx, change, &list.Items[i], &namespaces) {
				out.add(&list.Items[i])
			}
		}
	}
	return out.requests, nil
}

// affects decides whether change can affect cc, as RequestsForChanges
// says.
func (m Mapper) affects(ctx context.Context, change registration.Change, cc *clusterv1.ClusterClass, namespaces *namespaceLabels) bool {
	if change.Kind != registration.Changed && change.Kind != registration.SelectorChanged {
		return true
	}
	var labels map[string]string
	// Selectors without terms answer alike for every namespace: nothing to
	// read, and a namespace missing from the cache is no reason to enqueue.
	if hasTerms(change.Old.NamespaceSelector) || hasTerms(change.New.NamespaceSelector) {
		var err error
		if labels, err = namespaces.get(ctx, cc.Namespace); err != nil {
			return true
		}
	}
	before, _ := registration.Admits(change.Old.NamespaceSelector, labels)
	after, _ := registration.Admits(change.New.NamespaceSelector, labels)
	if change.Kind == registration.Changed {
		return before || after
	}
	return m.flipped(types.NamespacedName{Namespace: cc.Namespace, Name: cc.Name}, change.New.ExtensionConfig, before, after)
}

// hasTerms reports whether a selector's answer depends on labels.
func hasTerms(selector *metav1.LabelSelector) bool {
	return selector != nil && (len(selector.MatchLabels) > 0 || len(selector.MatchExpressions) > 0)
}

// RequestsForExtensionConfig maps an ExtensionConfig event to ClusterClass
// requests by diffing the handlers the old and new objects register (old is
// nil for a create, new for a delete). A resync, a status write that leaves
// the handlers equal, or label and annotation churn maps to nothing.
//
// The object carries the registration a controller is about to apply, not
// necessarily the one it has applied; a controller that owns a registry
// should diff registry states instead (see RequestsForChanges), so that a
// reconcile never runs ahead of the registration it depends on.
func (m Mapper) RequestsForExtensionConfig(ctx context.Context, old, new *runtimev1.ExtensionConfig) ([]reconcile.Request, error) {
	return m.RequestsForChanges(ctx, registration.Diff(registration.HandlerStates(old), registration.HandlerStates(new)))
}

// SelectorLookup returns the namespaceSelector of a registered
// ExtensionConfig, and false when it has none registered.
type SelectorLookup func(extensionConfig string) (*metav1.LabelSelector, bool)

// RequestsForNamespace maps a Namespace label change to the ClusterClasses
// in that namespace referencing a config whose selector now admits the
// namespace where it did not (as last applied, see Applied; else under the
// old labels), or the reverse.
func (m Mapper) RequestsForNamespace(ctx context.Context, namespace string, oldLabels, newLabels map[string]string, selectorOf SelectorLookup) ([]reconcile.Request, error) {
	list := &clusterv1.ClusterClassList{}
	if err := m.Reader.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("list ClusterClasses in namespace %s: %w", namespace, err)
	}
	out := requestSet{}
	// Each config's selector is evaluated once per event, not per
	// ClusterClass.
	type admission struct{ registered, before, after bool }
	byConfig := map[string]admission{}
	for i := range list.Items {
		cc := &list.Items[i]
		for _, config := range ExtensionConfigNames(cc) {
			a, seen := byConfig[config]
			if !seen {
				if selector, registered := selectorOf(config); registered {
					a.registered = true
					a.before, _ = registration.Admits(selector, oldLabels)
					a.after, _ = registration.Admits(selector, newLabels)
				}
				byConfig[config] = a
			}
			if a.registered && m.flipped(types.NamespacedName{Namespace: cc.Namespace, Name: cc.Name}, config, a.before, a.after) {
				out.add(cc)
				break
			}
		}
	}
	return out.requests, nil
}

type requestSet struct {
	seen     map[types.NamespacedName]struct{}
	requests []reconcile.Request
}

func (s *requestSet) add(cc *clusterv1.ClusterClass) {
	if s.seen == nil {
		s.seen = map[types.NamespacedName]struct{}{}
	}
	name := types.NamespacedName{Namespace: cc.Namespace, Name: cc.Name}
	if _, ok := s.seen[name]; ok {
		return
	}
	s.seen[name] = struct{}{}
	s.requests = append(s.requests, reconcile.Request{NamespacedName: name})
}

// namespaceLabels reads each namespace's labels once per mapping.
type namespaceLabels struct {
	reader client.Reader
	byName map[string]map[string]string
}

func (n *namespaceLabels) get(ctx context.Context, name string) (map[string]string, error) {
	if labels, ok := n.byName[name]; ok {
		return labels, nil
	}
	ns := NamespaceMetadata()
	if err := n.reader.Get(ctx, client.ObjectKey{Name: name}, ns); err != nil {
		return nil, fmt.Errorf("read namespace %s: %w", name, err)
	}
	if n.byName == nil {
		n.byName = map[string]map[string]string{}
	}
	n.byName[name] = ns.Labels
	return ns.Labels, nil
}
