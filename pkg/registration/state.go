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

package registration

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
)

// HandlerState is what the mapping needs to know about one registered
// handler: enough to tell whether a ClusterClass can observe a change.
type HandlerState struct {
	// Name is the full name `<handler>.<config>`.
	Name string
	// ExtensionConfig is the config that registers it.
	ExtensionConfig string
	// Fingerprint changes exactly when a call's result or behaviour could.
	Fingerprint string
	// NamespaceSelector decides which namespaces may use the handler; a
	// nil one admits none, as in Cluster API (see Admits).
	NamespaceSelector *metav1.LabelSelector
}

// HandlerStates derives the states of the handlers an ExtensionConfig
// registers: those its status records, under its current spec. Entries
// RecordedHandlers skips are left out.
func HandlerStates(ext *runtimev1.ExtensionConfig) []HandlerState {
	if ext == nil {
		return nil
	}
	recorded, _ := RecordedHandlers(ext)
	states := make([]HandlerState, 0, len(recorded))
	for _, h := range recorded {
		states = append(states, StateOf(ext, h))
	}
	return states
}

// StateOf is the state of one handler ext's status records, under ext's
// current spec. The state owns a copy of the namespaceSelector, so it may
// outlive ext: the registry keeps it while the informer's copy moves on.
func StateOf(ext *runtimev1.ExtensionConfig, h RecordedHandler) HandlerState {
	return HandlerState{
		Name:              h.FullName,
		ExtensionConfig:   ext.Name,
		Fingerprint:       Fingerprint(ext.Spec.ClientConfig, ext.Spec.Settings, h),
		NamespaceSelector: ext.Spec.NamespaceSelector.DeepCopy(),
	}
}

// Fingerprint hashes every input of a call to one handler: where it goes
// (endpoint, and the path from hook and handler name), whom it trusts (CA
// bundle), how long it may take and what a failure means (timeout, failure
// policy), and the default settings. The namespaceSelector is left out on
// purpose: it decides whether a ClusterClass may call, not what the call
// returns. Labels, annotations, conditions and resourceVersion are left out
// because no call depends on them. The handler enters by its discovered
// name, so a status in the short form of earlier versions and the full form
// Cluster API writes give the same fingerprint.
func Fingerprint(config runtimev1.ClientConfig, settings map[string]string, h RecordedHandler) string {
	ca := sha256.Sum256(config.CABundle)
	input := struct {
		URL           string                     `json:"url,omitempty"`
		Service       runtimev1.ServiceReference `json:"service,omitzero"`
		CA            string                     `json:"ca"`
		Hook          runtimev1.GroupVersionHook `json:"hook"`
		Handler       string                     `json:"handler"`
		Timeout       int32                      `json:"timeout"`
		FailurePolicy runtimev1.FailurePolicy    `json:"failurePolicy"`
		Settings      map[string]string          `json:"settings,omitempty"`
	}{
		URL:           config.URL,
		Service:       config.Service,
		CA:            hex.EncodeToString(ca[:]),
		Hook:          h.RequestHook,
		Handler:       h.HandlerName,
		Timeout:       h.TimeoutSeconds,
		FailurePolicy: h.FailurePolicy,
		Settings:      settings, // encoding/json sorts map keys: stable
	}
	data, _ := json.Marshal(input) // strings and integers only: cannot fail
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// ChangeKind says what happened to a handler.
type ChangeKind string

const (
	// Added: the handler was not registered before.
	Added ChangeKind = "added"
	// Removed: the handler is no longer registered.
	Removed ChangeKind = "removed"
	// Changed: calls to the handler can answer or behave differently.
	Changed ChangeKind = "changed"
	// SelectorChanged: only the namespaces admitted to the handler changed.
	SelectorChanged ChangeKind = "selectorChanged"
)

// Change is a difference between two registrations of one handler.
type Change struct {
	Handler string
	Kind    ChangeKind
	// Old and New are nil for Added and Removed respectively.
	Old, New *HandlerState
}

// Diff compares two sets of handler states and returns the changes a
// ClusterClass can observe, sorted by handler name. Equal sets give none.
func Diff(old, new []HandlerState) []Change {
	before := make(map[string]HandlerState, len(old))
	for _, h := range old {
		before[h.Name] = h
	}
	var changes []Change
	seen := make(map[string]struct{}, len(new))
	for _, n := range new {
		seen[n.Name] = struct{}{}
		o, ok := before[n.Name]
		switch {
		case !ok:
			changes = append(changes, Change{Handler: n.Name, Kind: Added, New: &n})
		case o.Fingerprint != n.Fingerprint || o.ExtensionConfig != n.ExtensionConfig:
			changes = append(changes, Change{Handler: n.Name, Kind: Changed, Old: &o, New: &n})
		case !equalSelectors(o.NamespaceSelector, n.NamespaceSelector):
			changes = append(changes, Change{Handler: n.Name, Kind: SelectorChanged, Old: &o, New: &n})
		}
	}
	for _, o := range old {
		if _, ok := seen[o.Name]; !ok {
			o := o
			changes = append(changes, Change{Handler: o.Name, Kind: Removed, Old: &o})
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Handler < changes[j].Handler })
	return changes
}

// equalSelectors compares selectors as written: nil and empty differ, as
// nil admits no namespace and empty admits all (see Admits).
func equalSelectors(a, b *metav1.LabelSelector) bool {
	return equality.Semantic.DeepEqual(a, b)
}
