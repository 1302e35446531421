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

package capiflow

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/differential"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/hookpath"
)

// Result is what one run of the flow measured and saw.
type Result struct {
	Manager string
	// Steps are the times from the Cluster's creation to the end of each
	// step.
	Steps map[string]time.Duration
	// Hooks are the test extension's records of its lifecycle hooks.
	Hooks map[string]string
	// Requests are the test extension's requests served, by hook, and
	// Reconciles the core manager's, by controller (since it last
	// started).
	Requests, Reconciles map[string]float64
	// Status is the ExtensionConfig's and ClusterClass's status, and
	// Conditions the Cluster's (type, status, reason) once scaled.
	Status     differential.Snapshot
	Conditions []string
}

// extensionRequests reads the requests the test extension served, by hook
// (controller-runtime's webhook metrics, by path).
func (f *flow) extensionRequests() (map[string]float64, error) {
	ext, err := f.mgmt.Scrape(f.ctx, capimanagement.TestExtensionName)
	if err != nil {
		return nil, err
	}
	requests := map[string]float64{}
	for _, series := range ext["controller_runtime_webhook_requests_total"].GetMetric() {
		for _, l := range series.GetLabel() {
			if l.GetName() == "webhook" {
				requests[hookpath.Hook(l.GetValue())] += series.GetCounter().GetValue()
			}
		}
	}
	return requests, nil
}

// requests is how often the test extension served hook so far; zero when
// its metrics cannot be read, for a check that polls.
func (f *flow) requests(hook string) float64 {
	requests, err := f.extensionRequests()
	if err != nil {
		return 0
	}
	return requests[hook]
}

// collectCounts reads the test extension's requests and the core
// manager's reconciles.
func (f *flow) collectCounts() {
	f.t.Helper()
	var err error
	if f.result.Requests, err = f.extensionRequests(); err != nil {
		f.t.Fatal(err)
	}
	core, err := f.mgmt.Scrape(f.ctx, capimanagement.CoreManagerName)
	if err != nil {
		f.t.Fatal(err)
	}
	f.result.Reconciles = map[string]float64{}
	for _, series := range core["controller_runtime_reconcile_total"].GetMetric() {
		for _, l := range series.GetLabel() {
			if l.GetName() == "controller" {
				f.result.Reconciles[l.GetValue()] += series.GetCounter().GetValue()
			}
		}
	}
}

// snapshotStatus keeps the status the two managers must agree on.
func (f *flow) snapshotStatus() {
	f.t.Helper()
	ext := &runtimev1.ExtensionConfig{}
	ext.Name = ExtensionConfigName
	cc := &clusterv1.ClusterClass{}
	cc.Namespace, cc.Name = Namespace, capimanagement.InMemoryClassName
	s, err := differential.Take(f.ctx, f.c, &differential.Fixture{
		ExtensionConfigs: []*runtimev1.ExtensionConfig{ext}, ClusterClasses: []*clusterv1.ClusterClass{cc},
	})
	if err != nil {
		f.t.Fatal(err)
	}
	f.result.Status = s
	// Reasons such as scaling settle after Available: take the conditions
	// once they have read the same for quietFor. (A condition that did not
	// change keeps the observedGeneration it was last set at.)
	var last []string
	var since time.Time
	f.eventually(settleTimeout, "the Cluster's conditions settle", func() (bool, string) {
		cluster, err := f.readCluster()
		if err != nil {
			return false, err.Error()
		}
		var now []string
		for _, c := range cluster.Status.Conditions {
			now = append(now, fmt.Sprintf("%s=%s (%s)", c.Type, c.Status, c.Reason))
		}
		sort.Strings(now)
		if !slices.Equal(now, last) {
			last, since = now, time.Now()
		}
		return time.Since(since) >= quietFor, "conditions still changing"
	})
	f.result.Conditions = last
}

// quietFor is how long the Cluster's conditions must stay the same to
// count as settled.
const quietFor = 3 * time.Second

// Summary is one run in a few lines, for the test log.
func (r *Result) Summary() string {
	return fmt.Sprintf("%s: steps %v\nrequests by hook: %v\nreconciles by controller: %v\nhooks recorded:\n%s",
		r.Manager, r.Steps, r.Requests, r.Reconciles, HookResponsesJSON(r.Hooks))
}

// HookResponsesJSON is the recorded hooks, sorted, for reports.
func HookResponsesJSON(recorded map[string]string) string {
	keys := make([]string, 0, len(recorded))
	for k := range recorded {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	lines := make([]string, 0, len(keys))
	for _, k := range keys {
		v, _ := json.Marshal(recorded[k])
		lines = append(lines, k+": "+string(v))
	}
	return strings.Join(lines, "\n")
}
