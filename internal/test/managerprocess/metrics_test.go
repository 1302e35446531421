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
