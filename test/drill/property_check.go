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
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/quiet"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// objectState is what the fresh check compares: an object's
// resourceVersion (any write changes it) and its status, to say what
// changed.
type objectState struct {
	resourceVersion string
	status          string
}

// snapshot reads every ClusterClass and ExtensionConfig from the apiserver.
func (p *propertyWorld) snapshot(ctx context.Context) (map[string]objectState, error) {
	out := map[string]objectState{}
	classes := &clusterv1.ClusterClassList{}
	if err := p.h.client.List(ctx, classes); err != nil {
		return nil, err
	}
	for i := range classes.Items {
		cc := &classes.Items[i]
		status, err := json.Marshal(cc.Status)
		if err != nil {
			return nil, err
		}
		out["ClusterClass "+cc.Namespace+"/"+cc.Name] = objectState{cc.ResourceVersion, string(status)}
	}
	configs := &runtimev1.ExtensionConfigList{}
	if err := p.h.client.List(ctx, configs); err != nil {
		return nil, err
	}
	for i := range configs.Items {
		ext := &configs.Items[i]
		status, err := json.Marshal(ext.Status)
		if err != nil {
			return nil, err
		}
		out["ExtensionConfig "+ext.Name] = objectState{ext.ResourceVersion, string(status)}
	}
	return out, nil
}

// checkFresh starts a second controller against the same apiserver and
// extensions, waits until it has reconciled every object and is quiet,
// and returns every object that changed meanwhile: a settled controller's
// statuses equal what a fresh one computes, so there must be none.
func (p *propertyWorld) checkFresh(ctx context.Context, round int) ([]string, error) {
	before, err := p.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	classes, configs := 0, 0
	for key := range before {
		if key[0] == 'C' {
			classes++
		} else {
			configs++
		}
	}
	checker, err := StartDropIn(ctx, p.controllerOptions(fmt.Sprintf("property-check-%d.log", round)))
	if err != nil {
		return nil, fmt.Errorf("start the fresh controller: %w", err)
	}
	defer checker.Stop()
	var s Sample
	if _, _, err := quiet.Wait(ctx, quiet.Options{Quiet: time.Second, Timeout: p.o.Timeout, Interval: 200 * time.Millisecond},
		quiet.Equal[int64], func() (int64, bool, error) {
			var err error
			s, err = checker.Sample(ctx)
			return s.Reconciles + s.ConfigReconciles, s.Reconciles >= int64(classes) && s.ConfigReconciles >= int64(configs), err
		}); err != nil {
		return nil, fmt.Errorf("fresh controller, with %d of %d ClusterClasses and %d of %d ExtensionConfigs reconciled: %w",
			s.Reconciles, classes, s.ConfigReconciles, configs, err)
	}
	checker.Stop()
	after, err := p.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	var writes []string
	for key, b := range before {
		a, ok := after[key]
		switch {
		case !ok:
			writes = append(writes, fmt.Sprintf("round %d: %s vanished during the fresh check", round, key))
		case a.resourceVersion != b.resourceVersion:
			writes = append(writes, fmt.Sprintf("round %d: a fresh controller rewrote %s:\n  settled: %s\n  fresh:   %s",
				round, key, clip(b.status), clip(a.status)))
		}
	}
	slices.Sort(writes)
	return writes, nil
}

// clip keeps a status readable in a report line.
func clip(s string) string {
	const limit = 1500
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "..."
}

// modelWait bounds how long a config's status may take to show what the
// model says once a round has settled: its reconcile takes milliseconds.
const modelWait = 20 * time.Second

// checkModel holds every existing ExtensionConfig's status to the model
// (see statusMismatch), waiting up to modelWait for it, and returns what
// still differs.
func (p *propertyWorld) checkModel(ctx context.Context, round int) ([]string, error) {
	var mismatches []string
	_, _, err := quiet.Wait(ctx, quiet.Options{Timeout: modelWait, Interval: 200 * time.Millisecond},
		slices.Equal[[]string], func() ([]string, bool, error) {
			mismatches = nil
			for k := range p.exists {
				if !p.exists[k] {
					continue
				}
				mismatch, err := p.statusMismatch(ctx, k)
				if err != nil {
					return nil, false, err
				}
				if mismatch != "" {
					mismatches = append(mismatches, fmt.Sprintf("round %d: ExtensionConfig %s: %s", round, p.h.fixture.extensions[k].name, mismatch))
				}
			}
			return mismatches, len(mismatches) == 0, nil
		})
	if errors.Is(err, quiet.ErrTimeout) {
		return mismatches, nil
	}
	return mismatches, err
}

// awaitModel waits until config k's status is what the model says.
func (p *propertyWorld) awaitModel(ctx context.Context, k int) error {
	_, _, err := quiet.Wait(ctx, quiet.Options{Timeout: p.o.Timeout, Interval: 100 * time.Millisecond},
		quiet.Equal[string], func() (string, bool, error) {
			mismatch, err := p.statusMismatch(ctx, k)
			return mismatch, mismatch == "", err
		})
	if err != nil {
		return fmt.Errorf("ExtensionConfig %s never showed what the model says: %w", p.h.fixture.extensions[k].name, err)
	}
	return nil
}

// statusMismatch reads config k and says how its status differs from
// the model, or "" when it does not.
func (p *propertyWorld) statusMismatch(ctx context.Context, k int) (string, error) {
	ext := &runtimev1.ExtensionConfig{}
	if err := p.h.client.Get(ctx, client.ObjectKey{Name: p.h.fixture.extensions[k].name}, ext); err != nil {
		return "", err
	}
	return configMismatch(ext, p.failing[k], p.recorded[k]), nil
}

// configMismatch says how a config's status differs from what a
// controller computes for it, or "" when it does not: the Discovered
// condition observes its generation and is False, for a failed Discovery,
// exactly while its extension fails Discovery; and status records the
// DiscoverVariables handler exactly when the last Discovery that worked
// found it (a failed Discovery keeps what status recorded).
func configMismatch(ext *runtimev1.ExtensionConfig, failing, recorded bool) string {
	var problems []string
	discovered := meta.FindStatusCondition(ext.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition)
	switch {
	case discovered == nil:
		problems = append(problems, "no Discovered condition")
	case discovered.ObservedGeneration != ext.Generation:
		problems = append(problems, fmt.Sprintf("Discovered observes generation %d of %d", discovered.ObservedGeneration, ext.Generation))
	case failing && (discovered.Status != metav1.ConditionFalse || !strings.Contains(discovered.Message, "Discovery failed")):
		problems = append(problems, fmt.Sprintf("Discovered is %s (%s) while Discovery fails", discovered.Status, discovered.Message))
	case !failing && discovered.Status != metav1.ConditionTrue:
		problems = append(problems, fmt.Sprintf("Discovered is %s (%s) while Discovery works", discovered.Status, discovered.Message))
	}
	name := registration.FullHandlerName(sampleextension.DiscoverVariablesHandler, ext.Name)
	has := slices.ContainsFunc(ext.Status.Handlers, func(h runtimev1.ExtensionHandler) bool { return h.Name == name })
	if has != recorded {
		problems = append(problems, fmt.Sprintf("status records %s: %t, want %t", name, has, recorded))
	}
	return strings.Join(problems, "; ")
}
