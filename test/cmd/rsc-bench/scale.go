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
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/cli"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/scale"
)

type scaleOptions struct {
	scale.Options
	managers   string
	out        string
	reportFrom string
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
	fs.DurationVar(&o.CacheMaxAge, "cache-max-age", 10*time.Minute, "Response cache max age of the cache run (at least the idle window).")
	fs.StringVar(&o.managers, "managers", "drop-in,capi,cache", "Runs, in order: drop-in (bin/core-manager), capi (bin/capi-baseline), cache (bin/core-manager with the response cache on).")
	fs.StringVar(&o.BinDir, "bin-dir", "", "Directory with the control plane, Cluster API's manager and providers (make capi-providers) and core-manager; defaults to $"+toolbin.DirEnv+" or bin/ of the project.")
	fs.StringVar(&o.ClusterTemplate, "cluster-template", "", "Cluster API's cluster-template-in-memory-scale.yaml; defaults to the copy in <bin-dir>/"+capimanagement.DataDir+"/templates.")
	fs.StringVar(&o.Dir, "local-dir", filepath.Join(".local", "scale"), "Data directory of the management clusters; each run's is wiped at its start.")
	fs.StringVar(&o.reportFrom, "report-from", "", "Write the report again from an earlier run's .json results, running nothing.")
	fs.StringVar(&o.out, "out", "scale-results/report.md", "The markdown report; its results (all counts, the normalised objects) go beside it, as .json.")
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
	o.Progress = stderr
	w, err := scale.RenderWorkload(ctx, o.BinDir, o.ClusterTemplate, o.Clusters, o.AdditionalClasses)
	if err != nil {
		return err
	}
	results, runErr := scale.Run(ctx, o.Options, w, variants)
	report := &scale.Report{Command: "rsc-bench scale " + strings.Join(args, " "), Options: o.Options, Results: results, Workload: w}
	if err := writeScaleReport(o.out, report); err != nil {
		return err
	}
	report.Write(stdout)
	return runErr
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

// resultsPath is where the results of the report at path go: n10.md's in
// n10.json.
func resultsPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".json"
}

// writeScaleReport writes the markdown report and its results beside it.
func writeScaleReport(path string, r *scale.Report) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	r.Write(f)
	if err := f.Close(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(resultsPath(path), append(data, '\n'), 0o644)
}

// rewriteScaleReport writes the report of an earlier run from its
// results.
func rewriteScaleReport(from, out string, stdout io.Writer) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	r := &scale.Report{}
	if err := json.Unmarshal(data, r); err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	if err := writeScaleReport(out, r); err != nil {
		return err
	}
	r.Write(stdout)
	return nil
}
