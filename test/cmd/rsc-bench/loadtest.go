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
	"syscall"
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
	rolloutMaxAge    time.Duration
	compare          string
	idlePeriod       time.Duration
	controllerBinary string
	dropIn           bool
}

// runLoadtest is the `loadtest` subcommand: it starts a fresh local control
// plane, runs the scenarios and writes tables, JSON and a chart.
func runLoadtest(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o := loadtestOptions{}
	fs := flag.NewFlagSet(name+" loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.scenarios, "scenarios", "seed,scale", "Scenarios to run: seed (10 ClusterClasses, 2 of 20 ExtensionConfigs each), scale (see --clusterclasses).")
	fs.StringVar(&o.clusterClasses, "clusterclasses", "1000", "ClusterClasses of the scale scenario; a comma-separated list runs one scale scenario per value (the chart's x axis).")
	fs.IntVar(&o.extensionConfigs, "extensionconfigs", 50, "ExtensionConfigs of the scale scenario.")
	fs.IntVar(&o.namespaces, "namespaces", 20, "Namespaces of the scale scenario.")
	fs.Float64Var(&o.selectorShare, "selector-share", 0.2, "Share of ExtensionConfigs with a namespaceSelector.")
	fs.StringVar(&o.localDir, "local-dir", filepath.Join(".local", "loadtest"), "Data directory of the load test's control plane; wiped at start.")
	fs.StringVar(&o.binDir, "bin-dir", "", "Directory with etcd and kube-apiserver; defaults to $"+toolbin.DirEnv+" or bin/ of the project.")
	fs.StringVar(&o.out, "out", "loadtest-results", "Directory for results.json and chart.svg.")
	fs.DurationVar(&o.quiet, "quiet", 2*time.Second, "How long without reconciles an event counts as settled.")
	fs.StringVar(&o.merge, "merge", "", "Comma-separated results.json files of earlier runs to add to this run's JSON and chart (with --scenarios \"\", only merge).")
	fs.DurationVar(&o.rolloutMaxAge, "rollout-max-age", 10*time.Second, "--variables-cache-max-age of the controller the rollout events run under (it is restarted for them); negative skips them.")
	fs.DurationVar(&o.timeout, "step-timeout", 2*time.Minute, "Longest wait for one step (set-up, one event) to settle.")
	fs.StringVar(&o.compare, "compare", "", "capi: run each scenario twice, under our controller and under Cluster API v1.14.2's core manager (bin/capi-baseline), each as its own process on a fresh control plane, and report both side by side, counting requests in kube-apiserver's audit log.")
	fs.DurationVar(&o.idlePeriod, "idle-period", 0, "When positive, restart the controller after the last (largest) scenario's events with its periodic work every this long (our --rediscovery-interval and --variables-cache-max-age, Cluster API's --sync-period) and add a row of what one period costs while nothing changes. Cluster API's DiscoverVariables cache TTL stays 10 minutes: below 10m its calls in that row are understated.")
	fs.StringVar(&o.controllerBinary, "controller-binary", filepath.Join("bin", "runtime-sdk-controller"), "Our controller binary, for --compare.")
	fs.BoolVar(&o.dropIn, "drop-in", false, "With --compare capi: --controller-binary is the drop-in core manager (bin/core-manager, built by make core-manager), run with Cluster API's flags in place of our controller; the rows' optimum Discovery is then Cluster API's for what users do (one per ExtensionConfig created or updated, and per status another writer changed), not the standalone's.")
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
	if o.dropIn && o.compare != "capi" {
		return fmt.Errorf("--drop-in needs --compare capi: it names what runs beside Cluster API's manager")
	}
	switch o.compare {
	case "":
	case "capi":
		return compareMain(ctx, o, scenarios, stdout, stderr)
	default:
		return fmt.Errorf("--compare: unknown controller %q (want capi)", o.compare)
	}
	results, err := loadtest.ReadJSON(o.merge)
	if err != nil {
		return err
	}
	if len(scenarios) == 0 {
		return writeResults(o, results, stdout)
	}
	cluster, config, err := startToolCluster(ctx, o.localDir, o.binDir, stderr)
	if err != nil {
		return err
	}
	defer cluster.Stop()

	for i, s := range scenarios {
		result, err := loadtest.Run(ctx, s, loadtest.Options{Config: config, Quiet: o.quiet, Timeout: o.timeout, Progress: stderr, RolloutMaxAge: o.rolloutMaxAge,
			IdlePeriod: o.idlePeriodFor(i, len(scenarios))})
		if err != nil {
			return fmt.Errorf("scenario %s: %w", s.Name, err)
		}
		if err := loadtest.WriteTable(stdout, result); err != nil {
			return err
		}
		results = append(results, result)
	}
	if err := writeResults(o, results, stdout); err != nil {
		return err
	}
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err == nil {
		// Linux reports ru_maxrss in KiB.
		fmt.Fprintf(stdout, "\npeak RSS of this process (controller, sample extensions and load driver): %d MiB\n", usage.Maxrss/1024)
	}
	return nil
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
