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

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/cli"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/loadtest"
)

type loadtestOptions struct {
	scenarios        string
	clusterClasses   string
	extensionConfigs int
	namespaces       int
	selectorShare    float64
	localDir         string
	binDir           string
	out              string
	quiet            time.Duration
	timeout          time.Duration
	merge            string
	compare          string
	idlePeriod       time.Duration
	controllerBinary string
	patchedBinary    string
}

// runLoadtest is the `loadtest` subcommand: it runs the scenarios under the
// drop-in core manager, each on a fresh local control plane (and, with
// --compare capi, under Cluster API's own manager too), and writes tables,
// JSON and a chart.
func runLoadtest(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o := loadtestOptions{}
	fs := flag.NewFlagSet(name+" loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.scenarios, "scenarios", "seed,scale", "Scenarios to run: seed (10 ClusterClasses, 2 of 20 ExtensionConfigs each), scale (see --clusterclasses).")
	fs.StringVar(&o.clusterClasses, "clusterclasses", "1000", "ClusterClasses of the scale scenario; a comma-separated list runs one scale scenario per value (the chart's x axis).")
	fs.IntVar(&o.extensionConfigs, "extensionconfigs", 50, "ExtensionConfigs of the scale scenario.")
	fs.IntVar(&o.namespaces, "namespaces", 20, "Namespaces of the scale scenario.")
	fs.Float64Var(&o.selectorShare, "selector-share", 0.2, "Share of ExtensionConfigs with a namespaceSelector.")
	fs.StringVar(&o.localDir, "local-dir", filepath.Join(".local", "loadtest"), "Data directory of the load test's control planes: one per run under it, each wiped at its start.")
	fs.StringVar(&o.binDir, "bin-dir", "", "Directory with etcd, kube-apiserver, bin/capi-baseline and its CRDs; defaults to $"+toolbin.DirEnv+" or bin/ of the project.")
	fs.StringVar(&o.out, "out", "loadtest-results", "Directory for results.json and chart.svg.")
	fs.DurationVar(&o.quiet, "quiet", 2*time.Second, "How long without reconciles an event counts as settled.")
	fs.StringVar(&o.merge, "merge", "", "Comma-separated results.json files of earlier runs to add to this run's JSON and chart (with --scenarios \"\", only merge).")
	fs.DurationVar(&o.timeout, "step-timeout", 2*time.Minute, "Longest wait for one step (set-up, one event) to settle.")
	fs.StringVar(&o.compare, "compare", "", "Comma-separated managers to run each scenario under too, each on a fresh control plane, reported side by side with the drop-in: capi, Cluster API v1.14.2's own core manager (bin/capi-baseline); patched, Cluster API's core manager with the patch series in upstream/patches (see --patched-binary).")
	fs.StringVar(&o.patchedBinary, "patched-binary", filepath.Join("bin", "capi-patched"), "Cluster API's core manager built with upstream/patches (make capi-patched), for --compare patched.")
	fs.DurationVar(&o.idlePeriod, "idle-period", 0, "When positive, restart the controller after the last (largest) scenario's events with --sync-period (also the drop-in's re-discovery period) set to this and add a row of what one period costs while nothing changes. DiscoverVariables answers live 10 minutes whatever the period: below 10m the row's calls are understated.")
	fs.StringVar(&o.controllerBinary, "controller-binary", filepath.Join("bin", "core-manager"), "The drop-in core manager (make core-manager).")
	return cli.Run(fs, args, stderr, func() error { return loadtestMain(ctx, o, stdout, stderr) })
}

func loadtestMain(ctx context.Context, o loadtestOptions, stdout, stderr io.Writer) error {
	var scenarios []loadtest.Scenario
	for _, s := range strings.Split(o.scenarios, ",") {
		switch strings.TrimSpace(s) {
		case "":
		case "seed":
			scenarios = append(scenarios, loadtest.SeedScenario())
		case "scale":
			for _, v := range strings.Split(o.clusterClasses, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil || n < 1 {
					return fmt.Errorf("--n: %q is not a positive number", v)
				}
				scenarios = append(scenarios, loadtest.ScaleScenario(n, o.extensionConfigs, o.namespaces, o.selectorShare))
			}
		default:
			return fmt.Errorf("--scenarios: unknown scenario %q", s)
		}
	}
	for _, s := range scenarios {
		if err := s.Validate(); err != nil {
			return err
		}
	}
	if _, err := o.comparedManagers(); err != nil {
		return err
	}
	results, err := loadtest.ReadJSON(o.merge)
	if err != nil {
		return err
	}
	if len(scenarios) > 0 {
		measured, err := measureScenarios(ctx, o, scenarios, stdout, stderr)
		if err != nil {
			return err
		}
		results = append(results, measured...)
	}
	return writeResults(o, results, stdout)
}

// writeResults writes results.json and chart.svg into the output directory.
func writeResults(o loadtestOptions, results []*loadtest.Result, stdout io.Writer) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	jsonPath, svgPath := filepath.Join(o.out, "results.json"), filepath.Join(o.out, "chart.svg")
	if err := loadtest.WriteJSON(jsonPath, results); err != nil {
		return err
	}
	if err := loadtest.WriteSVG(svgPath, results); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", jsonPath, svgPath)
	return nil
}

// idlePeriodFor is the idle period of the i-th of n scenarios: only the
// last, the largest, measures one, since periodic work costs what the
// cluster holds and an idle period is minutes of waiting.
func (o loadtestOptions) idlePeriodFor(i, n int) time.Duration {
	if i != n-1 {
		return 0
	}
	return o.idlePeriod
}

// comparedManagers returns the loadtest names of the managers --compare
// asks for, in its order.
func (o loadtestOptions) comparedManagers() ([]string, error) {
	var names []string
	seen := map[string]bool{}
	for _, m := range strings.Split(o.compare, ",") {
		m = strings.TrimSpace(m)
		var name string
		switch m {
		case "":
			continue
		case "capi":
			name = loadtest.NameCAPI
		case "patched":
			name = loadtest.NamePatched
		default:
			return nil, fmt.Errorf("--compare: unknown manager %q (want capi or patched)", m)
		}
		if seen[name] {
			return nil, fmt.Errorf("--compare: %q named twice", m)
		}
		seen[name] = true
		names = append(names, name)
	}
	return names, nil
}
