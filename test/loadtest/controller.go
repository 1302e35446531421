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

package loadtest

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/capiversion"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
)

// Controller is the controller a run measures, as a process of its own:
// the drop-in core manager or Cluster API's.
type Controller interface {
	// Name says which it is in tables.
	Name() string
	// Start runs it with the periods of its periodic work.
	Start(ctx context.Context, p Periods) error
	// Stop ends it; Start may run it again.
	Stop()
	// Reconciles is controller_runtime_reconcile_total of its ClusterClass
	// controller, summed over every start.
	Reconciles() int64
	// Enqueues is runtime_sdk_clusterclass_enqueued_total, summed over
	// every start; zero where it does not say (Cluster API's).
	Enqueues() float64
}

// Periods set a controller's periodic work.
type Periods struct {
	// Resync is --sync-period, also the drop-in's re-discovery period
	// (zero: Cluster API's default of 10 minutes). Both keep their
	// DiscoverVariables answers a fixed 10 minutes.
	Resync time.Duration
}

// DefaultPeriod is Cluster API's default --sync-period and its
// DiscoverVariables cache TTL: the period an idle row at default periods
// lasts.
const DefaultPeriod = 10 * time.Minute

// Controller names in results.
const (
	NameCAPI = "cluster-api-" + capiversion.Version
	// NameDropIn is the drop-in core manager: Cluster API's with our
	// ExtensionConfig and ClusterClass controllers and runtime client.
	NameDropIn = "core-manager"
	// NamePatched is Cluster API's core manager built from its released
	// source with the patch series in upstream/patches (bin/capi-patched).
	NamePatched = NameCAPI + "-patched"
)

// RunsClusterAPIExtensionConfigController reports whether the manager
// named name runs Cluster API's own ExtensionConfig controller, which runs
// Discovery on every update of a config: Cluster API's manager, with or
// without the patch series (which leaves that controller as it is), and
// not the drop-in.
func RunsClusterAPIExtensionConfigController(name string) bool {
	return name == NameCAPI || name == NamePatched
}

// The flags both processes run with: Cluster API v1.14.2's core manager's
// defaults, so that neither is throttled differently.
var sharedFlags = []string{
	fmt.Sprintf("--kube-api-qps=%d", userfacing.DefaultKubeAPIQPS),
	fmt.Sprintf("--kube-api-burst=%d", userfacing.DefaultKubeAPIBurst),
}

// process is a controller running as its own process, scraped over HTTP.
type process struct {
	name    string
	start   func(ctx context.Context, p Periods, logPath string) (*managerprocess.Process, func(), error)
	logDir  string
	running *managerprocess.Process
	stop    func()
	starts  int
	// earlier sums what the processes stopped before had counted, last
	// what the running one counted at its last scrape.
	earlier, last metricTotals
}

type metricTotals struct {
	reconciles int64
	enqueues   float64
}

// CAPIProcess runs Cluster API's core manager (bin/capi-baseline in binDir)
// against kubeconfig, its logs in logDir, with args after the shared flags.
func CAPIProcess(binDir, kubeconfig, logDir string, args ...string) Controller {
	return coreManagerProcess(NameCAPI, "", binDir, kubeconfig, logDir, args)
}

// PatchedProcess runs binary, Cluster API's core manager built with the
// patch series (make capi-patched), as CAPIProcess runs Cluster API's.
func PatchedProcess(binary, binDir, kubeconfig, logDir string, args ...string) Controller {
	return coreManagerProcess(NamePatched, binary, binDir, kubeconfig, logDir, args)
}

// DropInProcess runs the drop-in core manager binary as CAPIProcess runs
// Cluster API's, with the same flags: its --sync-period is also its
// re-discovery interval, and its DiscoverVariables answers live 10
// minutes, as Cluster API's do. binDir holds Cluster API's CRDs.
func DropInProcess(binary, binDir, kubeconfig, logDir string, args ...string) Controller {
	return coreManagerProcess(NameDropIn, binary, binDir, kubeconfig, logDir, args)
}

// coreManagerProcess runs a build of Cluster API's core manager: binary,
// or bin/capi-baseline when it is empty.
func coreManagerProcess(name, binary, binDir, kubeconfig, logDir string, args []string) Controller {
	return &process{
		name:   name,
		logDir: logDir,
		start: func(ctx context.Context, p Periods, logPath string) (*managerprocess.Process, func(), error) {
			flags := append([]string{}, sharedFlags...)
			if p.Resync > 0 {
				flags = append(flags, "--sync-period="+p.Resync.String())
			}
			m, err := capibaseline.Start(ctx, capibaseline.Options{
				BinDir: binDir, Binary: binary, Kubeconfig: kubeconfig, LogPath: logPath,
				Args: append(flags, args...),
			})
			if err != nil {
				return nil, nil, err
			}
			return m.Process, m.Stop, nil
		},
	}
}

func (p *process) Name() string { return p.name }

func (p *process) Start(ctx context.Context, periods Periods) error {
	p.starts++
	logPath := filepath.Join(p.logDir, p.name+"-"+strconv.Itoa(p.starts)+".log")
	running, stop, err := p.start(ctx, periods, logPath)
	if err != nil {
		return err
	}
	p.running, p.stop = running, stop
	return nil
}

func (p *process) Stop() {
	if p.stop == nil {
		return
	}
	p.scrape()
	p.earlier.reconciles += p.last.reconciles
	p.earlier.enqueues += p.last.enqueues
	p.last = metricTotals{}
	p.stop()
	p.stop, p.running = nil, nil
}

// scrape reads the running process's counters; a failed scrape keeps the
// last ones (they only grow).
func (p *process) scrape() {
	if p.running == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m, err := p.running.Scrape(ctx)
	if err != nil {
		return
	}
	p.last = metricTotals{
		reconciles: int64(m.Sum("controller_runtime_reconcile_total", map[string]string{"controller": "clusterclass"})),
		enqueues:   m.Sum("runtime_sdk_clusterclass_enqueued_total", nil),
	}
}

func (p *process) Reconciles() int64 {
	p.scrape()
	return p.earlier.reconciles + p.last.reconciles
}

func (p *process) Enqueues() float64 {
	p.scrape()
	return p.earlier.enqueues + p.last.enqueues
}
