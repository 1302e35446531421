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
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/minimalclass"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/auditcount"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/loadtest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/localclustertest"
)

// controllerUser is the user each measured controller runs as, so that the
// audit log tells its requests from the driver's.
const controllerUser = "controller"

// lab is what every measured run needs: the binaries' directory, Cluster
// API's CRDs and the template CRDs the fixture's ClusterClasses name.
type lab struct {
	binDir string
	crds   []*apiextensionsv1.CustomResourceDefinition
}

func newLab(o loadtestOptions) (*lab, error) {
	binDir := o.binDir
	if binDir == "" {
		var err error
		if binDir, err = toolbin.Dir(); err != nil {
			return nil, err
		}
	}
	// Both managers need Cluster API's CRDs; the comparison needs its
	// manager too. Never a silent fallback to a simulation.
	if err := capibaseline.Check(binDir); err != nil {
		return nil, err
	}
	crds, err := capibaseline.CRDs(binDir)
	if err != nil {
		return nil, err
	}
	crds = append(append([]*apiextensionsv1.CustomResourceDefinition{}, crds...), minimalclass.TemplateCRDs()...)
	return &lab{binDir: binDir, crds: crds}, nil
}

// measureScenarios runs every scenario under the drop-in and under each
// manager --compare names (Cluster API's core manager, and Cluster API's
// with the patch series), each as its own process on a fresh control plane
// with an audit log, prints the tables and returns every result.
func measureScenarios(ctx context.Context, o loadtestOptions, scenarios []loadtest.Scenario, stdout, stderr io.Writer) ([]*loadtest.Result, error) {
	logErrorsOnly(stderr)
	compared, err := o.comparedManagers()
	if err != nil {
		return nil, err
	}
	binary, err := binaryFile("controller-binary", o.controllerBinary, "core-manager")
	if err != nil {
		return nil, err
	}
	o.controllerBinary = binary
	if slices.Contains(compared, loadtest.NamePatched) {
		if o.patchedBinary, err = binaryFile("patched-binary", o.patchedBinary, "capi-patched"); err != nil {
			return nil, err
		}
	}
	l, err := newLab(o)
	if err != nil {
		return nil, err
	}
	var results []*loadtest.Result
	for i, s := range scenarios {
		scenarioOptions := o
		scenarioOptions.idlePeriod = o.idlePeriodFor(i, len(scenarios))
		dropIn, err := measureUnder(ctx, scenarioOptions, s, loadtest.NameDropIn, l, stderr)
		if err != nil {
			return nil, err
		}
		results = append(results, dropIn)
		if len(compared) == 0 {
			if err := loadtest.WriteTable(stdout, dropIn); err != nil {
				return nil, err
			}
			continue
		}
		var others []*loadtest.Result
		for _, which := range compared {
			other, err := measureUnder(ctx, scenarioOptions, s, which, l, stderr)
			if err != nil {
				return nil, err
			}
			loadtest.SetRatios(dropIn, other)
			others = append(others, other)
		}
		if err := loadtest.WriteComparison(stdout, dropIn, others...); err != nil {
			return nil, err
		}
		results = append(results, others...)
	}
	return results, nil
}

// measureUnder runs s under one controller on a fresh control plane in
// --local-dir/scenario/which. A directory is never reused within a run:
// once, a control plane started in the directory another had just left
// failed the driver's TLS verification for its whole start (a serving
// certificate from another CA); the cause is not traced yet.
func measureUnder(ctx context.Context, o loadtestOptions, s loadtest.Scenario, which string, l *lab, stderr io.Writer) (*loadtest.Result, error) {
	dir := filepath.Join(o.localDir, s.Name, which)
	fmt.Fprintf(stderr, "scenario %s under %s (control plane in %s)\n", s.Name, which, dir)
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("wipe %s: %w", dir, err)
	}
	opts := localcluster.Options{Dir: dir, BinDir: l.binDir, CRDs: l.crds}
	auditLog, err := localclustertest.AuditLog(&opts)
	if err != nil {
		return nil, err
	}
	cluster, err := localcluster.Start(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("local control plane: %w", err)
	}
	defer cluster.Stop()
	kubeconfig, _, err := localclustertest.User(cluster, controllerUser)
	if err != nil {
		return nil, err
	}
	logDir := filepath.Join(dir, "logs")
	controller := loadtest.DropInProcess(o.controllerBinary, l.binDir, kubeconfig, logDir)
	switch which {
	case loadtest.NameCAPI:
		controller = loadtest.CAPIProcess(l.binDir, kubeconfig, logDir)
	case loadtest.NamePatched:
		controller = loadtest.PatchedProcess(o.patchedBinary, l.binDir, kubeconfig, logDir)
	}
	driver := cluster.Config()
	driver.QPS, driver.Burst = 500, 1000
	result, err := loadtest.Run(ctx, s, loadtest.Options{
		Config: driver, Quiet: o.quiet, Timeout: o.timeout, Progress: stderr, IdlePeriod: o.idlePeriod,
		Controller:     controller,
		Audit:          auditcount.Open(auditLog),
		ControllerUser: controllerUser,
	})
	if err != nil {
		return nil, fmt.Errorf("scenario %s under %s: %w", s.Name, which, err)
	}
	return result, nil
}
