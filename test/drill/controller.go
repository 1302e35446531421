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

package drill

import (
	"context"
	"strconv"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/procstat"
)

// ControllerOptions start one controller process.
type ControllerOptions struct {
	// Binary is the executable: bin/core-manager, the drop-in, for
	// StartDropIn; bin/runtime-sdk-controller for StartObserver.
	Binary string
	// Kubeconfig names the control plane to run against.
	Kubeconfig string
	// Args are extra flags, after the ones the start function sets.
	Args []string
	// LogPath receives the process's stderr.
	LogPath string
}

// Controller is a running controller process.
type Controller struct {
	*managerprocess.Process
	// stop, when set, stops the process and cleans up after it.
	stop func()
}

// Stop stops the process.
func (c *Controller) Stop() {
	if c.stop != nil {
		c.stop()
		return
	}
	c.Process.Stop()
}

// StartDropIn starts the drop-in core manager, with Cluster API's
// RuntimeSDK and ClusterTopology gates and a throw-away webhook
// certificate, and waits until it reports ready (its handler registry
// warmed up). The control plane must serve Cluster API's CRDs: the drop-in
// runs every Cluster API core controller.
func StartDropIn(ctx context.Context, opts ControllerOptions) (*Controller, error) {
	m, err := capibaseline.Start(ctx, capibaseline.Options{
		Binary: opts.Binary, Kubeconfig: opts.Kubeconfig, LogPath: opts.LogPath, Args: opts.Args,
	})
	if err != nil {
		return nil, err
	}
	return &Controller{Process: m.Process, stop: m.Stop}, nil
}

// StartObserver starts the read-only tools' binary in observe mode and
// waits until it reports ready. The drills run the drop-in (StartDropIn).
func StartObserver(ctx context.Context, opts ControllerOptions) (*Controller, error) {
	metricsPort, err := localcluster.FreePort()
	if err != nil {
		return nil, err
	}
	probePort, err := localcluster.FreePort()
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"--kubeconfig", opts.Kubeconfig,
		// Scraped over plain HTTP on loopback, which only this machine reaches.
		"--metrics-bind-address", "127.0.0.1:" + strconv.Itoa(metricsPort), "--metrics-secure=false",
		"--health-probe-bind-address", "127.0.0.1:" + strconv.Itoa(probePort),
	}, opts.Args...)
	p, err := managerprocess.Start(ctx, managerprocess.Options{
		Binary:     opts.Binary,
		Args:       args,
		LogPath:    opts.LogPath,
		MetricsURL: "http://127.0.0.1:" + strconv.Itoa(metricsPort) + "/metrics",
		ReadyURL:   "http://127.0.0.1:" + strconv.Itoa(probePort) + "/readyz",
	})
	if err != nil {
		return nil, err
	}
	return &Controller{Process: p}, nil
}

// Sample is one reading of the controller process.
type Sample struct {
	// At is the time since the drill started.
	At time.Duration `json:"at"`
	// RSSBytes is the resident set size (VmRSS).
	RSSBytes int64 `json:"rssBytes"`
	// HeapBytes is the Go heap in use.
	HeapBytes int64 `json:"heapBytes"`
	// Goroutines is go_goroutines.
	Goroutines int `json:"goroutines"`
	// Reconciles and ReconcileErrors count ClusterClass reconciles.
	Reconciles      int64 `json:"reconciles"`
	ReconcileErrors int64 `json:"reconcileErrors"`
	// ConfigReconciles counts ExtensionConfig reconciles.
	ConfigReconciles int64 `json:"configReconciles"`
	// Enqueued counts the ClusterClass requests that events added to the
	// queue (retries after errors are added by the queue's backoff and are
	// not in it).
	Enqueued int64 `json:"enqueued"`
	// DiscoverVariablesCalls and DiscoveryCalls count calls that reached an
	// extension (success or error; cache hits and shared calls excluded).
	DiscoverVariablesCalls int64 `json:"discoverVariablesCalls"`
	DiscoveryCalls         int64 `json:"discoveryCalls"`
	// UnchangedRefreshes counts DiscoverVariables answers asked again after
	// the max age that came back the same.
	UnchangedRefreshes int64 `json:"unchangedRefreshes"`
	// ChangedRefreshes and FailedRefreshes count those that found a new
	// answer or an error.
	ChangedRefreshes int64 `json:"changedRefreshes"`
	FailedRefreshes  int64 `json:"failedRefreshes"`
	// CacheEntries is the DiscoverVariables call cache's size.
	CacheEntries int64 `json:"cacheEntries"`
	// RegisteredHandlers is the registry's size.
	RegisteredHandlers int64 `json:"registeredHandlers"`
}

// Sample reads the process's RSS and scrapes its metrics.
func (c *Controller) Sample(ctx context.Context) (Sample, error) {
	var s Sample
	rss, err := procstat.StatusBytes(c.PID(), procstat.ResidentNow)
	if err != nil {
		return s, err
	}
	s.RSSBytes = rss
	families, err := c.Scrape(ctx)
	if err != nil {
		return s, err
	}
	s.HeapBytes = int64(families.Sum("go_memstats_heap_inuse_bytes", nil))
	s.Goroutines = int(families.Sum("go_goroutines", nil))
	isClusterClass := map[string]string{"controller": "clusterclass"}
	s.Reconciles = int64(families.Sum("controller_runtime_reconcile_total", isClusterClass))
	s.ReconcileErrors = int64(families.Sum("controller_runtime_reconcile_errors_total", isClusterClass))
	s.ConfigReconciles = int64(families.Sum("controller_runtime_reconcile_total", map[string]string{"controller": "extensionconfig"}))
	s.UnchangedRefreshes = int64(families.Sum("runtime_sdk_variables_refreshes_total", map[string]string{"outcome": "unchanged"}))
	s.ChangedRefreshes = int64(families.Sum("runtime_sdk_variables_refreshes_total", map[string]string{"outcome": "changed"}))
	s.FailedRefreshes = int64(families.Sum("runtime_sdk_variables_refreshes_total", map[string]string{"outcome": "failed"}))
	s.Enqueued = int64(families.Sum("runtime_sdk_clusterclass_enqueued_total", nil))
	for _, outcome := range []string{"success", "error"} {
		s.DiscoverVariablesCalls += int64(families.Sum("runtime_sdk_extension_calls_total", map[string]string{"hook": "DiscoverVariables", "outcome": outcome}))
		s.DiscoveryCalls += int64(families.Sum("runtime_sdk_extension_calls_total", map[string]string{"hook": "Discovery", "outcome": outcome}))
	}
	s.CacheEntries = int64(families.Sum("runtime_sdk_variables_cache_entries", nil))
	s.RegisteredHandlers = int64(families.Sum("runtime_sdk_registered_handlers", nil))
	return s, nil
}
