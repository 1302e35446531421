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

package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/prometheus/promql/parser"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/apiservertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/minimalclass"
)

var env *apiservertest.Env

func TestMain(m *testing.M) {
	if err := managertest.TurnOnRuntimeSDK(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(apiservertest.Run(m, &env))
}

type dashboard struct {
	Panels []struct {
		Title   string `json:"title"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// grafanaVariables are what Grafana substitutes before a query reaches
// Prometheus; the parser sees a duration in their place, as Prometheus does.
var grafanaVariables = regexp.MustCompile(`\$__rate_interval|\$__interval|\$__range`)

func TestDashboard_EveryQueryParsesAndNamesOnlyExportedMetrics(t *testing.T) {
	data, err := os.ReadFile("../../config/grafana/runtime-sdk-controller.json")
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	exported := exportedMetrics(t)

	titles := map[string]bool{}
	queries := 0
	p := parser.NewParser(parser.Options{})
	for _, panel := range d.Panels {
		titles[strings.ToLower(panel.Title)] = true
		for _, target := range panel.Targets {
			queries++
			expr, err := p.ParseExpr(grafanaVariables.ReplaceAllString(target.Expr, "5m"))
			if err != nil {
				t.Errorf("panel %q: %q does not parse: %v", panel.Title, target.Expr, err)
				continue
			}
			parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
				if vs, ok := node.(*parser.VectorSelector); ok && !exported[vs.Name] {
					t.Errorf("panel %q: %s is not a metric the controller exports", panel.Title, vs.Name)
				}
				return nil
			})
		}
	}
	if queries == 0 {
		t.Fatal("the dashboard has no queries")
	}
	for _, want := range []string{"reconciles by trigger", "extension calls by outcome", "call latency", "cache and index sizes", "events by outcome"} {
		found := false
		for title := range titles {
			found = found || strings.Contains(title, want)
		}
		if !found {
			t.Errorf("no panel for %q", want)
		}
	}
}

// exportedMetrics are the series names the controller serves: its own
// metrics, by their descriptions, and controller-runtime's, gathered from
// a manager that has started its controllers.
func exportedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	fqName := regexp.MustCompile(`fqName: "([^"]+)"`)
	for _, c := range metrics.Collectors() {
		descs := make(chan *prometheus.Desc, 8)
		go func() { c.Describe(descs); close(descs) }()
		for d := range descs {
			m := fqName.FindStringSubmatch(d.String())
			if m == nil {
				t.Fatalf("no name in %s", d)
			}
			switch c.(type) {
			case *prometheus.HistogramVec, prometheus.Histogram:
				addHistogram(names, m[1])
			default:
				names[m[1]] = true
			}
		}
	}

	managertest.StartControllers(t, env.Config, managertest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// A ClusterClass to reconcile puts the work queues' series in place.
	if err := minimalclass.CreateWithOwnTemplates(ctx, env.Client, minimalclass.ClusterClass(env.Namespace(t, nil), "dashboard")); err != nil {
		t.Fatal(err)
	}
	for {
		families, err := ctrlmetrics.Registry.Gather()
		if err != nil {
			t.Fatal(err)
		}
		started := false
		for _, f := range families {
			if f.GetType() == dto.MetricType_HISTOGRAM {
				addHistogram(names, f.GetName())
			} else {
				names[f.GetName()] = true
			}
			started = started || (f.GetName() == "controller_runtime_reconcile_total" && len(f.GetMetric()) > 0)
		}
		if started && names["workqueue_depth"] {
			return names
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the manager's controllers did not start within a minute; gathered %d names: %v", len(names), names)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// addHistogram adds the series a histogram is served as: its buckets, sum
// and count, never its bare name.
func addHistogram(names map[string]bool, name string) {
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		names[name+suffix] = true
	}
}
