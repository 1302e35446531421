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

package managerprocess

import (
	"maps"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestMetrics_ByLabelAddsSeriesByOneLabelAndLeavesOutTheRest(t *testing.T) {
	registry := prometheus.NewRegistry()
	workers := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "workers"}, []string{"controller", "kind"})
	other := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "other"}, []string{"name"})
	registry.MustRegister(workers, other)
	workers.WithLabelValues("machine", "a").Set(10)
	workers.WithLabelValues("machine", "b").Set(5)
	workers.WithLabelValues("crdmigrator", "a").Set(1)
	other.WithLabelValues("machine").Add(7)

	m, err := Gather(registry)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.ByLabel("workers", "controller"), map[string]float64{"machine": 15, "crdmigrator": 1}; !maps.Equal(got, want) {
		t.Errorf("by controller: %v, want %v", got, want)
	}
	if got := m.ByLabel("workers", "name"); len(got) != 0 {
		t.Errorf("by a label no series has: %v, want nothing", got)
	}
	if got := m.ByLabel("missing", "controller"); len(got) != 0 {
		t.Errorf("of a missing family: %v, want nothing", got)
	}
	if got, want := m.Sum("workers", map[string]string{"kind": "a"}), 11.0; got != want {
		t.Errorf("Sum of kind a: %v, want %v", got, want)
	}
}
