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
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Metrics is one scrape of a manager's metrics endpoint.
type Metrics map[string]*dto.MetricFamily

// Scrape reads the process's metrics.
func (p *Process) Scrape(ctx context.Context) (Metrics, error) {
	return Scrape(ctx, p.metricsURL)
}

// Scrape reads the Prometheus text exposition at url.
func Scrape(ctx context.Context, url string) (Metrics, error) {
	return ScrapeWith(ctx, http.DefaultClient, url)
}

// ScrapeWith is Scrape through client: an apiserver's proxy to a kubelet
// needs its credentials.
func ScrapeWith(ctx context.Context, client *http.Client, url string) (Metrics, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("parse metrics of %s: %w", url, err)
	}
	return families, nil
}

// Sum adds the values of a family's series whose labels include want.
func (m Metrics) Sum(name string, want map[string]string) float64 {
	family, ok := m[name]
	if !ok {
		return 0
	}
	total := 0.0
	for _, series := range family.GetMetric() {
		if hasLabels(series, want) {
			total += value(series)
		}
	}
	return total
}

// ByLabel adds the values of a family's series by the value of one label,
// such as controller-runtime's workers per controller; series without the
// label are left out.
func (m Metrics) ByLabel(name, label string) map[string]float64 {
	out := map[string]float64{}
	for _, series := range m[name].GetMetric() {
		for _, l := range series.GetLabel() {
			if l.GetName() == label {
				out[l.GetValue()] += value(series)
			}
		}
	}
	return out
}

// value is a counter's, gauge's or untyped series' value.
func value(series *dto.Metric) float64 {
	switch {
	case series.Counter != nil:
		return series.Counter.GetValue()
	case series.Gauge != nil:
		return series.Gauge.GetValue()
	case series.Untyped != nil:
		return series.Untyped.GetValue()
	}
	return 0
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	found := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			found++
		}
	}
	return found == len(want)
}

// Gather reads the metrics of a registry in this process, such as
// controller-runtime's, for a manager run in-process.
func Gather(g prometheus.Gatherer) (Metrics, error) {
	families, err := g.Gather()
	if err != nil {
		return nil, err
	}
	m := make(Metrics, len(families))
	for _, f := range families {
		m[f.GetName()] = f
	}
	return m, nil
}
