package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

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

// compareScenario runs s once under our controller and once under Cluster
// API's core manager, each as its own process on a fresh control plane
// with an audit log, and returns both results.
func compareScenario(ctx context.Context, o loadtestOptions, s loadtest.Scenario, stderr io.Writer) (ours, capi *loadtest.Result, err error) {
	binDir := o.binDir
	if binDir == "" {
		if binDir, err = toolbin.Dir(); err != nil {
			return nil, nil, err
		}
	}
	// Never a silent fallback to the simulation: without Cluster API's
	// manager there is nothing to compare with.
	if err := capibaseline.Check(binDir); err != nil {
		return nil, nil, fmt.Errorf("--compare capi: %w", err)
	}
	crds, err := capibaseline.CRDs(binDir)
	if err != nil {
		return nil, nil, err
	}
	crds = append(append([]*apiextensionsv1.CustomResourceDefinition{}, crds...), minimalclass.TemplateCRDs()...)

	oursName := loadtest.NameOurs
	if o.dropIn {
		oursName = loadtest.NameDropIn
	}
	for _, which := range []string{oursName, loadtest.NameCAPI} {
		dir := filepath.Join(o.localDir, which)
		fmt.Fprintf(stderr, "scenario %s under %s (control plane in %s)\n", s.Name, which, dir)
		result, err := measureUnder(ctx, o, s, which, dir, binDir, crds, stderr)
		if err != nil {
			return nil, nil, fmt.Errorf("scenario %s under %s: %w", s.Name, which, err)
		}
		if which == oursName {
			ours = result
		} else {
			capi = result
		}
	}
	return ours, capi, nil
}

// measureUnder runs s under one controller on a fresh control plane in dir.
func measureUnder(ctx context.Context, o loadtestOptions, s loadtest.Scenario, which, dir, binDir string,
	crds []*apiextensionsv1.CustomResourceDefinition, stderr io.Writer,
) (*loadtest.Result, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("wipe %s: %w", dir, err)
	}
	opts := localcluster.Options{Dir: dir, BinDir: binDir, CRDs: crds}
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
	var controller loadtest.Controller
	switch which {
	case loadtest.NameCAPI:
		controller = loadtest.CAPIProcess(binDir, kubeconfig, logDir)
	case loadtest.NameDropIn:
		controller = loadtest.DropInProcess(o.controllerBinary, binDir, kubeconfig, logDir)
	default:
		controller = loadtest.OurProcess(o.controllerBinary, kubeconfig, logDir)
	}
	driver := cluster.Config()
	driver.QPS, driver.Burst = 500, 1000
	return loadtest.Run(ctx, s, loadtest.Options{
		Config: driver, Quiet: o.quiet, Timeout: o.timeout, Progress: stderr, IdlePeriod: o.idlePeriod,
		// Both sides of a comparison are held to one optimum: what the
		// controller compared with Cluster API's promises.
		DiscoveryOptimum: o.discoveryOptimum(),
		// The rollout rows need Cluster API's fixed 10-minute cache TTL to
		// pass; they are not part of the comparison yet.
		RolloutMaxAge:  -1,
		Controller:     controller,
		Audit:          auditcount.Open(auditLog),
		ControllerUser: controllerUser,
	})
}

// discoveryOptimum is the Discovery optimum of a comparison: Cluster
// API's for what users do when the drop-in is compared, the standalone
// controller's otherwise.
func (o loadtestOptions) discoveryOptimum() loadtest.DiscoveryOptimum {
	if o.dropIn {
		return loadtest.DiscoverOnEveryChange
	}
	return loadtest.DiscoverWhenAnswerCanChange
}

// compareMain runs every scenario under both controllers and writes the
// side-by-side tables and both results into results.json.
func compareMain(ctx context.Context, o loadtestOptions, scenarios []loadtest.Scenario, stdout, stderr io.Writer) error {
	logErrorsOnly(stderr)
	binary, err := controllerBinary(o.controllerBinary)
	if err != nil {
		return err
	}
	// The drop-in takes Cluster API's flags, our controller others: a
	// mix-up would fail only once both had started.
	if o.dropIn && filepath.Base(binary) == "runtime-sdk-controller" {
		return fmt.Errorf("--drop-in runs the drop-in core manager: set --controller-binary to bin/core-manager (make core-manager), not %s", binary)
	}
	o.controllerBinary = binary
	var results []*loadtest.Result
	for i, s := range scenarios {
		scenarioOptions := o
		scenarioOptions.idlePeriod = o.idlePeriodFor(i, len(scenarios))
		ours, capi, err := compareScenario(ctx, scenarioOptions, s, stderr)
		if err != nil {
			return err
		}
		loadtest.SetRatios(ours, capi)
		if err := loadtest.WriteComparison(stdout, ours, capi); err != nil {
			return err
		}
		results = append(results, ours, capi)
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	return writeResults(o, results, stdout)
}
