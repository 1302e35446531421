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

package differential

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"testing"
	"time"

	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/quiet"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
)

// event is one change to an ExtensionConfig, applied the same way under
// each manager.
type event struct {
	name   string
	config string
	apply  func(*runtimev1.ExtensionConfig)
}

var observedEvents = []event{
	{"a label-only change", ConfigAll, func(e *runtimev1.ExtensionConfig) {
		e.Labels = map[string]string{"touched": fmt.Sprint(time.Now().UnixNano())}
	}},
	{"a settings change", ConfigAll, func(e *runtimev1.ExtensionConfig) {
		e.Spec.Settings = map[string]string{"flavour": "large"}
	}},
}

// counts are the counters one event moves.
type counts struct {
	capi, scan, index, dropIn int64
}

// applyAndCount applies ev and waits until every counter read stays the
// same for quietFor, returning how much each moved.
func applyAndCount(t *testing.T, ctx context.Context, c *Cluster, ev event, read func() (map[string]int64, error)) map[string]int64 {
	t.Helper()
	before, err := read()
	if err != nil {
		t.Fatal(err)
	}
	ext := &runtimev1.ExtensionConfig{}
	if err := c.Client.Get(ctx, client.ObjectKey{Name: ev.config}, ext); err != nil {
		t.Fatal(err)
	}
	base := ext.DeepCopy()
	ev.apply(ext)
	if err := c.Client.Patch(ctx, ext, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	last, _, err := quiet.Wait(ctx, quiet.Options{Quiet: quietFor, Timeout: time.Minute, Interval: 250 * time.Millisecond},
		maps.Equal[map[string]int64], func() (map[string]int64, bool, error) {
			now, err := read()
			return now, true, err
		})
	if errors.Is(err, quiet.ErrTimeout) {
		t.Fatalf("%s: counters still moving after a minute: %v", ev.name, last)
	}
	if err != nil {
		t.Fatal(err)
	}
	delta := map[string]int64{}
	for k, v := range last {
		delta[k] = v - before[k]
	}
	return delta
}

func sumOf(m managerprocess.Metrics, name string, labels map[string]string) int64 {
	return int64(m.Sum(name, labels))
}

// Observe mode beside Cluster API's real manager: for each ExtensionConfig
// event its scan count is what Cluster API's ClusterClass controller
// actually reconciled, and its index count is what the drop-in's
// ClusterClass controller reconciles for the same event.
func TestObserveMode_CountsWhatEachControllerReconciles(t *testing.T) {
	binDir := capibaseline.Require(t)
	ctx := context.Background()
	e := extensions(t)
	f := e.fixture(true)
	results := make([]counts, len(observedEvents))

	c := freshCluster(t, ctx, f, "observe-beside-capi")
	capi := startManager(t, c, func(c *Cluster) (Manager, error) { return c.StartBaseline(ctx, binDir, "capi") })
	if err := f.Create(ctx, c.Client); err != nil {
		t.Fatal(err)
	}
	settle(t, ctx, c, f, capi)
	observer := startManager(t, c, func(c *Cluster) (Manager, error) { return c.StartObserver(ctx, binary, "observer") })
	read := func() (map[string]int64, error) {
		cm, err := capi.Scrape(ctx)
		if err != nil {
			return nil, err
		}
		om, err := observer.Scrape(ctx)
		if err != nil {
			return nil, err
		}
		clusterClass := func(result string) map[string]string {
			return map[string]string{"controller": "clusterclass", "result": result}
		}
		return map[string]int64{
			// Cluster API's rate limiting (its ReconcilerRateLimiting
			// gate) answers a second request for an object within a second
			// with a requeue_after result without reconciling; the rest ran.
			"capi": sumOf(cm, "controller_runtime_reconcile_total", clusterClass("success")) +
				sumOf(cm, "controller_runtime_reconcile_total", clusterClass("error")),
			"capiDeferred": sumOf(cm, "controller_runtime_reconcile_total", clusterClass("requeue_after")),
			"scan":         sumOf(om, "runtime_sdk_observed_clusterclass_reconciles_total", map[string]string{"mapping": "scan"}),
			"index":        sumOf(om, "runtime_sdk_observed_clusterclass_reconciles_total", map[string]string{"mapping": "index"}),
			"events":       sumOf(om, "runtime_sdk_observed_extensionconfig_events_total", nil),
		}, nil
	}
	polltest.Eventually(t, time.Minute, "observer saw every ExtensionConfig", func() (bool, string) {
		now, err := read()
		if err != nil {
			return false, err.Error()
		}
		return now["events"] >= int64(len(f.ExtensionConfigs)), fmt.Sprintf("%d events", now["events"])
	})
	for i, ev := range observedEvents {
		d := applyAndCount(t, ctx, c, ev, read)
		results[i].capi, results[i].scan, results[i].index = d["capi"], d["scan"], d["index"]
		t.Logf("%s under Cluster API: %d ExtensionConfig events observed, %d ClusterClass reconciles deferred by its rate limiting",
			ev.name, d["events"], d["capiDeferred"])
	}
	observer.Stop()
	capi.Stop()

	c = freshCluster(t, ctx, f, "observe-drop-in")
	dropIn := startManager(t, c, func(c *Cluster) (Manager, error) { return c.StartDropIn(ctx, binDir, coreManager, "core-manager") })
	if err := f.Create(ctx, c.Client); err != nil {
		t.Fatal(err)
	}
	settle(t, ctx, c, f, dropIn)
	for i, ev := range observedEvents {
		d := applyAndCount(t, ctx, c, ev, func() (map[string]int64, error) {
			m, err := dropIn.Scrape(ctx)
			if err != nil {
				return nil, err
			}
			return map[string]int64{"dropIn": sumOf(m, "controller_runtime_reconcile_total", map[string]string{"controller": "clusterclass"})}, nil
		})
		results[i].dropIn = d["dropIn"]
	}

	for i, ev := range observedEvents {
		r := results[i]
		t.Logf("%s: Cluster API reconciled %d, observe scan %d; observe index %d, the drop-in reconciled %d", ev.name, r.capi, r.scan, r.index, r.dropIn)
		if r.scan != r.capi {
			t.Errorf("%s: observe mode's scan count %d, Cluster API reconciled %d", ev.name, r.scan, r.capi)
		}
		if r.index != r.dropIn {
			t.Errorf("%s: observe mode's index count %d, the drop-in reconciled %d", ev.name, r.index, r.dropIn)
		}
	}
}
