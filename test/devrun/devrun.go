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

package devrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/cli"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// Options configure one launch.
type Options struct {
	// LocalDir holds the management cluster's data, certificates and logs,
	// in LocalDir/management, which every launch starts afresh: the
	// in-memory provider keeps its workload clusters in memory, so a
	// Cluster kept from an earlier launch would have lost its machines.
	LocalDir string
	// BinDir holds the control plane's binaries, bin/core-manager,
	// sample-extension and what `make capi-providers` builds.
	BinDir string
	// ExamplesDir holds the YAML applied in file name order,
	// extension/variables.yaml, the sample extension's answer, and
	// next/second-cluster.yaml, which a printed step creates.
	ExamplesDir string
	// ExtensionAddress and ExtensionAdminAddress are where the sample
	// extension serves its hooks (HTTPS) and its admin endpoint.
	ExtensionAddress, ExtensionAdminAddress string
	// TestExtensionPort is where Cluster API's test extension serves its
	// hooks, on every interface (its server takes no host).
	TestExtensionPort int
	// CoreManagerArgs are added to the core manager's command line.
	CoreManagerArgs []string
	// SummaryInterval is how often the summary is computed.
	SummaryInterval time.Duration
}

// Defaults of Options, which the examples' ExtensionConfigs name: another
// address or port rewrites their URL.
const (
	DefaultExtensionAddress      = "127.0.0.1:9443"
	DefaultExtensionAdminAddress = "127.0.0.1:9444"
	DefaultTestExtensionPort     = 9445
)

// withDefaults fills what the command line left empty.
func (o Options) withDefaults() Options {
	if o.LocalDir == "" {
		o.LocalDir = ".local"
	}
	if o.ExamplesDir == "" {
		o.ExamplesDir = "examples"
	}
	if o.ExtensionAddress == "" {
		o.ExtensionAddress = DefaultExtensionAddress
	}
	if o.ExtensionAdminAddress == "" {
		o.ExtensionAdminAddress = DefaultExtensionAdminAddress
	}
	if o.TestExtensionPort == 0 {
		o.TestExtensionPort = DefaultTestExtensionPort
	}
	if o.SummaryInterval == 0 {
		o.SummaryInterval = 2 * time.Second
	}
	return o
}

// workloadClusters is how many workload clusters a launch expects the
// in-memory provider to serve, each on a port of its own: the examples'
// Cluster and the second one of the next steps.
const workloadClusters = 2

// Run starts everything, prints the next steps and the summary to out until
// ctx ends or a process exits, then stops what it started: the management
// cluster (providers, core manager, control plane), then the sample
// extension, which the core manager calls until it stops.
func Run(ctx context.Context, o Options, out io.Writer) error {
	o = o.withDefaults()
	started := time.Now()
	if err := checkCoreManagerArgs(o.CoreManagerArgs); err != nil {
		return err
	}
	if err := checkPorts(o); err != nil {
		return err
	}
	// Another start holds the in-memory provider's ports: Start waits for
	// it, and checks them once it has ended.
	if err := capimanagement.CheckPorts(workloadClusters); errors.Is(err, capimanagement.ErrLocked) {
		fmt.Fprintf(out, "waiting: %v\n", err)
	} else if err != nil {
		return err
	}
	dir := filepath.Join(o.LocalDir, "management")
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("start afresh: %w", err)
	}
	fmt.Fprintf(out, "Starting a Cluster API %s management cluster in %s, with %s as its core manager (about a minute):\n",
		capibaseline.Version, cli.Relative(dir), cli.Relative(filepath.Join(o.BinDir, coreManagerBinary)))
	mgmt, err := capimanagement.Start(ctx, capimanagement.Options{
		BinDir: o.BinDir, Dir: dir, CoreManager: filepath.Join(o.BinDir, coreManagerBinary),
		CoreManagerArgs: o.CoreManagerArgs, TestExtensionPort: o.TestExtensionPort,
		WorkloadClusters: workloadClusters, Progress: out,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil // Ctrl-C during the start: Start stopped what it started
		}
		return err
	}
	var extension *managerprocess.Process
	defer func() {
		mgmt.Stop()
		if extension != nil {
			stopLogged(out, "sample extension", stopProcess(extension))
		}
	}()
	extensionStarted := time.Now()
	extension, extensionCA, err := startExtension(ctx, o, dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "sample extension ready (%s)\n", time.Since(extensionStarted).Round(100*time.Millisecond))

	if err := writeCASecrets(ctx, mgmt, extensionCA); err != nil {
		return err
	}
	applied, failures := applyExamples(ctx, mgmt.Client, o.ExamplesDir, map[string]string{
		"https://" + DefaultExtensionAddress:                          extensionURL(o),
		fmt.Sprintf("https://127.0.0.1:%d", DefaultTestExtensionPort): mgmt.ExtensionURL,
	})
	for _, failure := range failures {
		fmt.Fprintf(out, "examples: %s\n", failure)
	}
	printNextSteps(out, nextSteps{
		took: time.Since(started), logs: filepath.Join(dir, "logs"), binDir: o.BinDir,
		kubeconfig: mgmt.Cluster.KubeconfigPath(), metricsURL: mgmt.MetricsURL(capimanagement.CoreManagerName),
		examplesDir: o.ExamplesDir, examples: applied,
	})
	return summarize(ctx, o, out, mgmt, extension)
}

// summarize prints the summary whenever it changes, until ctx ends or a
// process exits.
func summarize(ctx context.Context, o Options, out io.Writer, mgmt *capimanagement.Management, extension *managerprocess.Process) error {
	summary := &summarizer{client: mgmt.Client, scrape: func(ctx context.Context) (managerprocess.Metrics, error) {
		return mgmt.Scrape(ctx, capimanagement.CoreManagerName)
	}}
	ticker := time.NewTicker(o.SummaryInterval)
	defer ticker.Stop()
	last := ""
	for {
		line, err := summary.line(ctx)
		if err != nil {
			line = "summary not available: " + cli.OneLine(err)
		}
		if line != last && ctx.Err() == nil {
			fmt.Fprintf(out, "%s %s\n", time.Now().Format("15:04:05"), line)
			last = line
		}
		if err := mgmt.Exited(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			fmt.Fprintln(out, "stopping: the management cluster (Cluster API's providers and test extension, the core manager, kube-apiserver, etcd), then the sample extension")
			return nil
		case <-extension.Done():
			_, err := extension.Exited()
			return fmt.Errorf("the sample extension exited (%v); see %s", err, extension.LogPath())
		case <-ticker.C:
		}
	}
}

// coreManagerBinary is the drop-in, as `make core-manager` builds it.
const coreManagerBinary = "core-manager"

// managedFlags are the core manager flags the launcher sets itself: the
// summary reads the metrics, start-up waits for the probes, and the
// webhooks the control plane calls are where it serves them.
var managedFlags = []string{"kubeconfig", "webhook-port", "webhook-cert-dir", "diagnostics-address", "insecure-diagnostics", "health-addr", "feature-gates"}

// checkCoreManagerArgs refuses core manager flags that would take from the
// launcher what it needs.
func checkCoreManagerArgs(args []string) error {
	for _, arg := range args {
		name := strings.TrimLeft(arg, "-")
		name, _, _ = strings.Cut(name, "=")
		if strings.HasPrefix(arg, "-") && slices.Contains(managedFlags, name) {
			return fmt.Errorf("core manager flag %s is set by rsc-dev (it runs %s)", arg, strings.Join(managedFlags, ", "))
		}
	}
	return nil
}
