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
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// events are the changes measured under the controller as it starts: each
// on the config it matters most for (the most referenced ones).
func (r *run) events() []event {
	f := r.fixture
	popular := f.mostPopular()
	events := []event{r.updateEveryConfigEvent(), r.statusWriteEvent(popular[0]), r.timeoutEvent(popular[0])}
	for _, i := range popular {
		if f.configs[i].selector != nil && len(f.referencers(i)) > 0 {
			events = append(events, r.selectorEvent(i))
			break
		}
	}
	return append(events, r.namespaceFlipEvent(), r.newVariablesEvent(popular[1]))
}

// updateEveryConfigEvent touches an annotation of every ExtensionConfig: an update
// event for each, like the resync Cluster API once mapped (it now filters
// pure resyncs, not updates), and nothing a ClusterClass can observe. It
// asks Cluster API, and so the drop-in, for one Discovery per config: Helm
// and Argo CD checksum annotations and `kubectl annotate` rely on it.
func (r *run) updateEveryConfigEvent() event {
	f := r.fixture
	return event{
		name: "update of every ExtensionConfig (annotation only)",
		apply: func(ctx context.Context) (applied, error) {
			var change applied
			bases := make([]int64, len(f.configs))
			for i := range f.configs {
				bases[i] = r.discoveries(i)
				s, err := r.updateConfig(ctx, i, func(e *runtimev1.ExtensionConfig) {
					setAnnotation(e, "loadtest/resync", strconv.FormatInt(time.Now().UnixNano(), 10))
				})
				if err != nil {
					return change, err
				}
				change.scan.add(s)
				change.writes++
			}
			// Cluster API discovers every config again; the drop-in too, and
			// its row waits for that through its optimum Discovery.
			if RunsClusterAPIExtensionConfigController(r.controller.Name()) {
				change.seen = func() (bool, error) {
					for i := range f.configs {
						if r.discoveries(i) <= bases[i] {
							return false, nil
						}
					}
					return true, nil
				}
			}
			return change, nil
		},
		optimum:          func() (int, int) { return 0, 0 },
		optimumDiscovery: func() int { return len(f.configs) },
	}
}

// statusWriteEvent writes a condition into config i's status only, as
// another writer would: Cluster API discovers the config again.
func (r *run) statusWriteEvent(i int) event {
	return event{
		name: "status-only write",
		apply: func(ctx context.Context) (applied, error) {
			old, err := r.getConfig(ctx, i)
			if err != nil {
				return applied{}, err
			}
			updated := old.DeepCopy()
			meta.SetStatusCondition(&updated.Status.Conditions, metav1.Condition{
				Type: "LoadTestAudited", Status: metav1.ConditionTrue, Reason: "Audited", Message: time.Now().String(),
			})
			if err := r.client.Status().Update(ctx, updated); err != nil {
				return applied{}, err
			}
			scan, err := r.scanUpdate(ctx, old, updated)
			return applied{writes: 1, scan: scan}, err
		},
		optimum:          func() (int, int) { return 0, 0 },
		optimumDiscovery: func() int { return 1 },
	}
}

// timeoutEvent makes config i's extension advertise a new timeout for its
// DiscoverVariables handler, and asks for Discovery at once.
func (r *run) timeoutEvent(i int) event {
	return event{
		name: "one handler's timeout changes",
		apply: func(ctx context.Context) (applied, error) {
			handlers := sampleextension.DefaultHandlers()
			for j := range handlers {
				if handlers[j].Name == sampleextension.DiscoverVariablesHandler {
					handlers[j].TimeoutSeconds = ptr.To[int32](20)
				}
			}
			r.fixture.configs[i].extension.Server.SetHandlers(handlers)
			seen := r.discoveredAgain(i)
			scan, err := r.updateConfig(ctx, i, func(e *runtimev1.ExtensionConfig) {
				// Ask for discovery now rather than at the next interval:
				// Cluster API and the drop-in discover on any annotation;
				// this one names why.
				setAnnotation(e, userfacing.RediscoverAnnotation, "timeout")
			})
			return applied{writes: 1, scan: scan, seen: seen}, err
		},
		optimum:          func() (int, int) { return r.affectedByRegistration(i) },
		optimumDiscovery: func() int { return 1 },
	}
}

// selectorEvent moves config i's namespaceSelector to tier b.
func (r *run) selectorEvent(i int) event {
	f := r.fixture
	return event{
		name: "namespaceSelector changes",
		apply: func(ctx context.Context) (applied, error) {
			seen := r.discoveredAgainUnderClusterAPI(i)
			scan, err := r.updateConfig(ctx, i, func(e *runtimev1.ExtensionConfig) {
				e.Spec.NamespaceSelector = tierSelector("b")
			})
			return applied{writes: 1, scan: scan, seen: seen}, err
		},
		optimum: func() (int, int) {
			reconciles, calls := 0, 0
			newly := false
			for _, cf := range f.referencers(i) {
				labels := f.namespaces[cf.namespace]
				before, _ := admitsSelector(f.configs[i].selector, labels)
				after, _ := admitsSelector(tierSelector("b"), labels)
				if before != after {
					reconciles++
				}
				if after && !before {
					newly = true
				}
			}
			// An answer is already cached when any namespace was admitted
			// before: the selector is not part of the call.
			if newly && !f.anyAdmitted(i) {
				calls = 1
			}
			f.configs[i].selector = tierSelector("b")
			return reconciles, calls
		},
		// A spec update: Cluster API discovers again, though the selector
		// is not part of the answer.
		optimumDiscovery: func() int { return 1 },
	}
}

// namespaceFlipEvent switches one namespace's tier label.
func (r *run) namespaceFlipEvent() event {
	f := r.fixture
	return event{
		name: "Namespace label flips",
		note: "Cluster API does not watch Namespaces: its ClusterClasses stay stale",
		apply: func(ctx context.Context) (applied, error) {
			name := f.flipNamespace()
			ns := &corev1.Namespace{}
			if err := r.client.Get(ctx, client.ObjectKey{Name: name}, ns); err != nil {
				return applied{}, err
			}
			ns.Labels[tierLabel] = f.namespaces[name][tierLabel]
			return applied{writes: 1}, r.client.Update(ctx, ns)
		},
		optimum: func() (int, int) { return f.namespaceFlipOptimum() },
	}
}

// newVariablesEvent changes config i's settings, a registration change,
// while its extension starts answering another variable.
func (r *run) newVariablesEvent(i int) event {
	return event{
		name: "extension answers new variables after a registration change",
		apply: func(ctx context.Context) (applied, error) {
			r.fixture.answerVariables(i, "size", "zone")
			seen := r.discoveredAgainUnderClusterAPI(i)
			scan, err := r.updateConfig(ctx, i, func(e *runtimev1.ExtensionConfig) {
				e.Spec.Settings = map[string]string{"revision": "2"}
			})
			return applied{writes: 1, scan: scan, seen: seen}, err
		},
		optimum:   func() (int, int) { return r.affectedByRegistration(i) },
		converged: func(ctx context.Context) (bool, error) { return r.showsVariable(ctx, i, "zone") },
		// Settings are not part of Discovery's answer; Cluster API
		// discovers on the spec update all the same.
		optimumDiscovery: func() int { return 1 },
	}
}

func setAnnotation(e *runtimev1.ExtensionConfig, key, value string) {
	if e.Annotations == nil {
		e.Annotations = map[string]string{}
	}
	e.Annotations[key] = value
}
