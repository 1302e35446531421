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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/cli"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/procstat"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/scale"
)

type scaleOptions struct {
	scale.Options
	managers   string
	out        string
	reportFrom string
	resume     bool
	madeBy     string
	notes      []string
}

// runScale is the `scale` subcommand: Cluster API's scale shape on a real
// management cluster under the drop-in and under Cluster API's own core
// manager, and optionally under the drop-in with the response cache.
func runScale(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o := scaleOptions{}
	fs := flag.NewFlagSet(name+" scale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.Clusters, "clusters", 10, "Clusters to create (Cluster API's scale e2e: 10).")
	fs.IntVar(&o.Concurrency, "concurrency", 5, "Clusters created, upgraded and deleted at a time, each waited for (Cluster API's scale e2e: 5).")
	fs.IntVar(&o.AdditionalClasses, "additional-clusterclasses", 4, "Copies of the in-memory ClusterClass under other names (Cluster API's scale e2e: 4).")
	fs.DurationVar(&o.SyncPeriod, "sync-period", time.Minute, "--sync-period of both core managers; the idle event lasts one period and --idle-margin.")
	fs.DurationVar(&o.IdleMargin, "idle-margin", 15*time.Second, "Added to the idle event's period.")
	fs.DurationVar(&o.Quiet, "quiet", 10*time.Second, "How long without a reconcile of the measured controllers and without an extension request an event counts as settled.")
	fs.DurationVar(&o.EventTimeout, "event-timeout", 30*time.Minute, "Longest an event may take (past the idle window); not quiet by then is reported, not done by then fails the run.")
	fs.DurationVar(&o.Settle, "settle", 0, "Longest wait for quiet once an event's change is done and its window passed; longer is reported as not quiet (0: --event-timeout).")
	fs.DurationVar(&o.CacheMaxAge, "cache-max-age", 10*time.Minute, "Response cache max age of the cache run (at least the idle window).")
	fs.StringVar(&o.managers, "managers", "drop-in,capi,cache", "Runs, in order: drop-in (bin/core-manager), capi (bin/capi-baseline), cache (bin/core-manager with the response cache on).")
	fs.StringVar(&o.BinDir, "bin-dir", "", "Directory with the control plane, Cluster API's manager and providers (make capi-providers) and core-manager; defaults to $"+toolbin.DirEnv+" or bin/ of the project.")
	fs.StringVar(&o.ClusterTemplate, "cluster-template", "", "Cluster API's cluster-template-in-memory-scale.yaml; defaults to the copy in <bin-dir>/"+capimanagement.DataDir+"/templates.")
	fs.StringVar(&o.Dir, "local-dir", filepath.Join(".local", "scale"), "Data directory of the management clusters; each run's is wiped at its start.")
	fs.StringVar(&o.reportFrom, "report-from", "", "Write the report again from an earlier run's .json results, running nothing.")
	fs.StringVar(&o.out, "out", "scale-results/report.md", "The markdown report; its results (all counts, the normalised objects) go beside it, as .json.")
	fs.Func("latencies", "The slow extension's latencies, comma-separated: every manager runs at each (0 passes requests on at once).", func(v string) error {
		var err error
		o.Latencies, err = parseDurations(v)
		return err
	})
	fs.BoolVar(&o.LeaderElection, "leader-election", false, "Run every core manager with --leader-elect, as Cluster API's Deployment does (needs root).")
	fs.Func("leader-change-latencies", "The latencies whose runs make a leader change after the upgrade, comma-separated (needs --leader-election).", func(v string) error {
		var err error
		o.LeaderChangeLatencies, err = parseDurations(v)
		return err
	})
	fs.DurationVar(&o.LeaderChangeWindow, "leader-change-window", 10*time.Minute, "How long after a takeover its counts run.")
	fs.Func("events", "The events to make, comma-separated, of: "+strings.Join(scale.Events, ", ")+" (all when not given).", func(v string) error {
		for _, e := range strings.Split(v, ",") {
			if !slices.Contains(scale.Events, strings.TrimSpace(e)) {
				return fmt.Errorf("unknown event %q", e)
			}
			o.Only = append(o.Only, strings.TrimSpace(e))
		}
		return nil
	})
	fs.StringVar(&o.madeBy, "made-by", "", "The make target that runs this, named at the report's top.")
	fs.Func("note", "A paragraph under the report's heading: what the run chose and why (repeat it).", func(v string) error {
		o.notes = append(o.notes, v)
		return nil
	})
	fs.BoolVar(&o.resume, "resume", false, "Keep the runs the results beside --out hold without an error, and make only the others.")
	fs.Func("manager-arg", "A flag of every core manager, the same under each (repeat it): the concurrency and client rate limits of a scale run.", func(v string) error {
		o.ManagerArgs = append(o.ManagerArgs, v)
		return nil
	})
	return cli.Run(fs, args, stderr, func() error { return scaleMain(ctx, o, args, stdout, stderr) })
}

func scaleMain(ctx context.Context, o scaleOptions, args []string, stdout, stderr io.Writer) error {
	logErrorsOnly(stderr)
	if o.reportFrom != "" {
		return rewriteScaleReport(o.reportFrom, o.out, stdout)
	}
	variants, err := parseManagers(o.managers)
	if err != nil {
		return err
	}
	if o.Clusters < 1 {
		return fmt.Errorf("--clusters %d: want at least 1", o.Clusters)
	}
	if o.CacheMaxAge < o.SyncPeriod+o.IdleMargin {
		return fmt.Errorf("--cache-max-age %s is shorter than the idle window (%s): the idle row would measure expiry, not repeats", o.CacheMaxAge, o.SyncPeriod+o.IdleMargin)
	}
	if o.BinDir == "" {
		if o.BinDir, err = toolbin.Dir(); err != nil {
			return err
		}
	}
	if o.ClusterTemplate == "" {
		o.ClusterTemplate = capimanagement.TemplatePath(o.BinDir, capimanagement.ScaleClusterTemplate)
	}
	if _, err := os.Stat(o.ClusterTemplate); err != nil {
		return fmt.Errorf("Cluster API's scale template: %w (make capi-providers copies it; or pass --cluster-template)", err)
	}
	if o.Dir, err = filepath.Abs(o.Dir); err != nil {
		return err
	}
	if err := checkLeaderChange(o.Options); err != nil {
		return err
	}
	o.Progress = stderr
	w, err := scale.RenderWorkload(ctx, o.BinDir, o.ClusterTemplate, o.Clusters, o.AdditionalClasses)
	if err != nil {
		return err
	}
	machine, err := procstat.Machine()
	if err != nil {
		return err
	}
	report := &scale.Report{Command: "rsc-bench scale " + strings.Join(withoutNotes(args), " "), Options: o.Options, Workload: w, Machine: machine, MadeBy: o.madeBy, Notes: o.notes, Started: time.Now().UTC()}
	for _, v := range variants {
		report.Variants = append(report.Variants, v.Name)
	}
	var earlier []*scale.RunResult
	if o.resume {
		if previous, err := readScaleResults(resultsPath(o.out)); err == nil {
			earlier, report.Started = previous.Results, previous.Started
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	// Each run's results are written as soon as it ends: a whole N = 200
	// run takes hours.
	o.Save = func(results []*scale.RunResult) error {
		report.Results = results
		return writeScaleReport(o.out, report)
	}
	if len(earlier) > 0 {
		// The kept runs under this command's notes and list of runs still
		// to make, at once rather than after the next run's hour.
		if err := o.Save(earlier); err != nil {
			return err
		}
	}
	results, runErr := scale.Run(ctx, o.Options, w, variants, earlier)
	report.Results, report.Finished = results, time.Now().UTC()
	if err := writeScaleReport(o.out, report); err != nil {
		return err
	}
	report.Write(stdout)
	return runErr
}

// withoutNotes is args less their --note values: the report prints the
// notes as paragraphs, and the command it names stays short enough to read.
func withoutNotes(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if name != "note" || !strings.HasPrefix(args[i], "-") {
			out = append(out, args[i])
			continue
		}
		if !hasValue {
			i++ // the value is the next argument
		}
	}
	return out
}

// checkLeaderChange refuses a leader change that would not be made.
func checkLeaderChange(o scale.Options) error {
	if len(o.LeaderChangeLatencies) == 0 {
		return nil
	}
	if !o.LeaderElection {
		return errors.New("--leader-change-latencies needs --leader-election")
	}
	if len(o.Only) > 0 && !slices.Contains(o.Only, scale.EventLeaderChange) {
		return fmt.Errorf("--leader-change-latencies, but --events leaves out %q", scale.EventLeaderChange)
	}
	latencies := o.RunLatencies()
	for _, l := range o.LeaderChangeLatencies {
		if !slices.Contains(latencies, l) {
			return fmt.Errorf("--leader-change-latencies %s is not among --latencies %v", l, latencies)
		}
	}
	return nil
}

// parseDurations reads a comma-separated list of durations.
func parseDurations(list string) ([]time.Duration, error) {
	var out []time.Duration
	for _, v := range strings.Split(list, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return nil, err
		}
		if d < 0 {
			return nil, fmt.Errorf("%s is negative", d)
		}
		out = append(out, d)
	}
	return out, nil
}

// parseManagers turns --managers into the variants to run.
func parseManagers(list string) ([]scale.Variant, error) {
	var out []scale.Variant
	for _, m := range strings.Split(list, ",") {
		switch strings.TrimSpace(m) {
		case "drop-in":
			out = append(out, scale.DropIn)
		case "capi":
			out = append(out, scale.ClusterAPI)
		case "cache":
			out = append(out, scale.DropInCache)
		default:
			return nil, fmt.Errorf("--managers: unknown %q (want drop-in, capi, cache)", m)
		}
	}
	return out, nil
}

// chartPath is where the chart of the report at path goes.
func chartPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".svg"
}

// resultsPath is where the results of the report at path go: n10.md's in
// n10.json.
func resultsPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".json"
}

// writeScaleReport writes the markdown report, and beside it its results
// and their chart (n200.md's in n200.json and n200.svg).
func writeScaleReport(path string, r *scale.Report) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var report, chart bytes.Buffer
	r.Write(&report)
	if err := scale.WriteChart(&chart, r.Results); err != nil {
		return err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	for file, content := range map[string][]byte{path: report.Bytes(), resultsPath(path): append(data, '\n'), chartPath(path): chart.Bytes()} {
		if err := writeWhole(file, content); err != nil {
			return err
		}
	}
	return nil
}

// writeWhole writes a file beside it and renames it into place, so that a
// run stopped while writing never leaves half a results file for --resume.
func writeWhole(path string, content []byte) error {
	partial := path + ".partial"
	if err := os.WriteFile(partial, content, 0o644); err != nil {
		return err
	}
	return os.Rename(partial, path)
}

// readScaleResults reads the results an earlier run wrote.
func readScaleResults(path string) (*scale.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &scale.Report{}
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// rewriteScaleReport writes the report of an earlier run from its
// results.
func rewriteScaleReport(from, out string, stdout io.Writer) error {
	r, err := readScaleResults(from)
	if err != nil {
		return err
	}
	if err := writeScaleReport(out, r); err != nil {
		return err
	}
	r.Write(stdout)
	return nil
}
