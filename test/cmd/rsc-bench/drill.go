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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/cli"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/minimalclass"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/drill"
)

type drillOptions struct {
	drills      string
	flap        drill.FlapOptions
	restart     drill.RestartOptions
	soak        drill.SoakOptions
	property    drill.PropertyOptions
	localDir    string
	binDir      string
	out         string
	coreManager string
}

// runDrill is the `drill` subcommand: it starts a fresh local control plane
// serving Cluster API's CRDs and runs the fault drills against the drop-in
// core manager, run as its own process.
func runDrill(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o := drillOptions{flap: drill.DefaultFlapOptions(), restart: drill.DefaultRestartOptions(), soak: drill.DefaultSoakOptions(), property: drill.DefaultPropertyOptions()}
	fs := flag.NewFlagSet(name+" drill", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.drills, "drills", "flap,restart,soak,property", "Drills to run, in order: flap (an extension cycling through faults), restart (kube-apiserver killed and started mid-reconcile), soak (many objects, periodic changes), property (random events, every status checked against a fresh drop-in).")
	fs.IntVar(&o.flap.ClusterClasses, "flap-cluster-classes", o.flap.ClusterClasses, "ClusterClasses of the flap drill.")
	fs.DurationVar(&o.flap.Duration, "flap-duration", o.flap.Duration, "How long the extensions flap.")
	fs.IntVar(&o.restart.ClusterClasses, "restart-cluster-classes", o.restart.ClusterClasses, "ClusterClasses of the restart drill.")
	fs.DurationVar(&o.restart.Outage, "restart-outage", o.restart.Outage, "How long kube-apiserver stays down.")
	fs.IntVar(&o.soak.ClusterClasses, "soak-cluster-classes", o.soak.ClusterClasses, "ClusterClasses of the soak.")
	fs.IntVar(&o.soak.ExtensionConfigs, "soak-extension-configs", o.soak.ExtensionConfigs, "ExtensionConfigs of the soak, each served by its own sample extension.")
	fs.DurationVar(&o.soak.Duration, "soak-duration", o.soak.Duration, "How long the soak's changes keep coming.")
	fs.Uint64Var(&o.property.Seed, "property-seed", 0, "Seed of the property drill's events (0: from the clock); printed, so a failure can be repeated.")
	fs.DurationVar(&o.property.Duration, "property-duration", o.property.Duration, "How long the property drill's rounds keep coming.")
	fs.IntVar(&o.property.ClusterClasses, "property-cluster-classes", o.property.ClusterClasses, "ClusterClasses of the property drill.")
	fs.IntVar(&o.property.FailureRoundEvery, "property-failure-round-every", o.property.FailureRoundEvery, "Every n-th round of the property drill makes Discovery of a config fail and changes the settings or CA of configs whose Discovery fails (0: none).")
	fs.StringVar(&o.localDir, "local-dir", filepath.Join(".local", "drill"), "Data directory of the drills' control plane and the drop-in's logs; wiped at start.")
	fs.StringVar(&o.binDir, "bin-dir", "", "Directory with etcd, kube-apiserver and Cluster API's CRDs (capi-baseline-crds, from make capi-baseline); defaults to $"+toolbin.DirEnv+" or bin/ of the project.")
	fs.StringVar(&o.out, "out", "drill-results", "Directory for report.txt and report.json.")
	fs.StringVar(&o.coreManager, "core-manager", filepath.Join("bin", "core-manager"), "The drop-in core manager binary the drills run (make core-manager).")
	return cli.Run(fs, args, stderr, func() error { return drillMain(ctx, o, stdout, stderr) })
}

func drillMain(ctx context.Context, o drillOptions, stdout, stderr io.Writer) error {
	// Every name is checked before anything starts.
	var names []string
	for _, d := range strings.Split(o.drills, ",") {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		if !slices.Contains(drillNames, d) {
			return fmt.Errorf("--drills: unknown drill %q", d)
		}
		names = append(names, d)
	}
	binary, err := filepath.Abs(o.coreManager)
	if err != nil {
		return err
	}
	if info, err := os.Stat(binary); err != nil || info.IsDir() {
		return fmt.Errorf("--core-manager %s: not a file (build it with make core-manager): %v", o.coreManager, err)
	}
	// The drop-ins under drill log to their own files in the data
	// directory.
	cluster, config, err := startDrillCluster(ctx, o.localDir, o.binDir, stderr)
	if err != nil {
		return err
	}
	defer cluster.Stop()
	env := drill.Env{Config: config, Kubeconfig: cluster.KubeconfigPath(), Binary: binary, LogDir: cluster.Dir(), Progress: stderr}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	text, err := os.Create(filepath.Join(o.out, "report.txt"))
	if err != nil {
		return err
	}
	defer text.Close()
	w := io.MultiWriter(stdout, text)
	fmt.Fprintf(w, "drills run %s on %s\n", time.Now().UTC().Format(time.RFC3339), cluster.Dir())

	drills := map[string]func() (drill.Report, error){
		"flap":     func() (drill.Report, error) { return reported(drill.Flap(ctx, env, o.flap)) },
		"restart":  func() (drill.Report, error) { return reported(drill.Restart(ctx, env, cluster, o.restart)) },
		"soak":     func() (drill.Report, error) { return reported(drill.Soak(ctx, env, o.soak)) },
		"property": func() (drill.Report, error) { return reported(drill.Property(ctx, env, o.property)) },
	}
	reports := map[string]drill.Report{}
	var problems []string
	for _, name := range names {
		report, err := drills[name]()
		if report != nil {
			reports[name] = report
			if werr := report.Write(w); werr != nil {
				return fmt.Errorf("write the %s report: %w", name, werr)
			}
			for _, problem := range report.Problems() {
				fmt.Fprintf(w, "PROBLEM (%s): %s\n", name, problem)
				problems = append(problems, name+": "+problem)
			}
		}
		if err != nil {
			return errors.Join(fmt.Errorf("%s: %w (drop-in logs in %s)", name, err, cluster.Dir()), writeDrillJSON(o.out, reports))
		}
	}
	if err := writeDrillJSON(o.out, reports); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", filepath.Join(o.out, "report.txt"), filepath.Join(o.out, "report.json"))
	if len(problems) > 0 {
		return fmt.Errorf("%d problems, first: %s", len(problems), problems[0])
	}
	return nil
}

// drillNames are the drills, in the order --drills lists them by default.
var drillNames = []string{"flap", "restart", "soak", "property"}

// reported turns a drill's typed report into a Report, keeping a nil
// report nil (a typed nil pointer would not be).
func reported[R interface {
	*T
	drill.Report
}, T any](r R, err error) (drill.Report, error) {
	if r == nil {
		return nil, err
	}
	return r, err
}

func writeDrillJSON(dir string, reports map[string]drill.Report) error {
	data, err := json.MarshalIndent(reports, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "report.json"), append(data, '\n'), 0o644)
}

// startDrillCluster wipes localDir and starts a control plane there that
// serves Cluster API's core CRDs, which the drop-in's controllers watch,
// and the fixture's template CRDs.
func startDrillCluster(ctx context.Context, localDir, binDir string, stderr io.Writer) (*localcluster.Cluster, *rest.Config, error) {
	logErrorsOnly(stderr)
	if binDir == "" {
		var err error
		if binDir, err = toolbin.Dir(); err != nil {
			return nil, nil, err
		}
	}
	crds, err := capibaseline.CRDs(binDir)
	if err != nil {
		return nil, nil, err
	}
	crds = append(append([]*apiextensionsv1.CustomResourceDefinition{}, crds...), minimalclass.TemplateCRDs()...)
	if err := os.RemoveAll(localDir); err != nil {
		return nil, nil, fmt.Errorf("wipe %s: %w", localDir, err)
	}
	cluster, err := localcluster.Start(ctx, localcluster.Options{Dir: localDir, BinDir: binDir, CRDs: crds})
	if err != nil {
		return nil, nil, fmt.Errorf("local control plane: %w", err)
	}
	config := cluster.Config()
	config.QPS, config.Burst = 500, 1000
	return cluster, config, nil
}
