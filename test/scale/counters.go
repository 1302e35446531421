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

package scale

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/auditcount"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/hookpath"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/procstat"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/slowextension"
)

// Controllers are the core manager's controllers the report counts
// reconciles of, by their controller-runtime names.
var Controllers = []string{"clusterclass", "extensionconfig", "topology/cluster", "cluster", "machine"}

// Counters are what has happened so far, or between two readings.
type Counters struct {
	// Requests are the test extension's requests served, by hook (the
	// lower-case hook of the request path, such as generatepatches).
	Requests map[string]float64 `json:"requests"`
	// Reconciles are the core manager's, by controller.
	Reconciles map[string]float64 `json:"reconciles"`
	// CacheLookups are the drop-in's response cache lookups, by hook and
	// result ("GeneratePatches/hit"); empty under Cluster API's manager.
	CacheLookups map[string]float64 `json:"cacheLookups,omitempty"`
	// APIRequests and APIWrites are the core manager's, from the audit log.
	APIRequests int `json:"apiRequests"`
	APIWrites   int `json:"apiWrites"`
	// CPUSeconds is the core manager's user and system time.
	CPUSeconds float64 `json:"cpuSeconds"`
	// ExtensionBusySeconds is the slow extension's busy time by hook
	// (slowextension.Stats), and ExtensionFailed the requests it could
	// not pass on.
	ExtensionBusySeconds map[string]float64 `json:"extensionBusySeconds,omitempty"`
	ExtensionFailed      map[string]float64 `json:"extensionFailed,omitempty"`
	// ProcessCPUSeconds is the CPU time of every process of the management
	// cluster, by name (etcd, kube-apiserver, each provider, each core
	// manager replica), and of the driver, this process, which serves the
	// slow extension too.
	ProcessCPUSeconds map[string]float64 `json:"processCPUSeconds,omitempty"`
	// HostBusySeconds and HostCPUSeconds are the machine's busy and total
	// CPU time, over all its CPUs.
	HostBusySeconds float64 `json:"hostBusySeconds,omitempty"`
	HostCPUSeconds  float64 `json:"hostCPUSeconds,omitempty"`
	// PeakRSSBytes is the core manager's resident set high-water mark
	// (VmHWM): not a difference, the peak up to the reading.
	PeakRSSBytes int64 `json:"peakRSSBytes"`
}

// Sub is what happened between before and c; PeakRSSBytes stays c's.
func (c Counters) Sub(before Counters) Counters {
	return Counters{
		Requests:     subMap(c.Requests, before.Requests),
		Reconciles:   subMap(c.Reconciles, before.Reconciles),
		CacheLookups: subMap(c.CacheLookups, before.CacheLookups),
		APIRequests:  c.APIRequests - before.APIRequests,
		APIWrites:    c.APIWrites - before.APIWrites,
		CPUSeconds:   c.CPUSeconds - before.CPUSeconds,
		PeakRSSBytes: c.PeakRSSBytes,

		ExtensionBusySeconds: subMap(c.ExtensionBusySeconds, before.ExtensionBusySeconds),
		ExtensionFailed:      subMap(c.ExtensionFailed, before.ExtensionFailed),
		ProcessCPUSeconds:    subMap(c.ProcessCPUSeconds, before.ProcessCPUSeconds),
		HostBusySeconds:      c.HostBusySeconds - before.HostBusySeconds,
		HostCPUSeconds:       c.HostCPUSeconds - before.HostCPUSeconds,
	}
}

func subMap(after, before map[string]float64) map[string]float64 {
	if after == nil && before == nil {
		return nil
	}
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// activity is one number that moves whenever the core manager reconciles
// one of Controllers or the test extension serves a request: the quiet
// test watches it.
func (c Counters) activity() float64 {
	total := 0.0
	for _, name := range Controllers {
		total += c.Reconciles[name]
	}
	for _, v := range c.Requests {
		total += v
	}
	return total
}

// reader takes Counters from a running management cluster.
type reader struct {
	mgmt *capimanagement.Management
	// audit counts kube-apiserver's audit log from when the management
	// cluster was up, so that API counts start with the workload.
	audit *auditcount.Tally
	// extension is the slow extension in front of the test extension.
	extension *slowextension.Proxy
	// progress, when set, takes a line for the progress log.
	progress func(line string)
}

// scrapeRetryFor is how long a failed scrape is tried again. With the
// machine fully busy, a metrics endpoint can miss the 10 s a scrape
// waits: Cluster API's manager did 31 minutes into an N = 200 create, and
// the whole run was lost. A process that exited ends the run at once
// instead, and an endpoint silent for scrapeRetryFor ends it too. A retry
// delays the poll it is in, and so the times that poll stamps (quiet, the
// leader change's window): the progress log says when it happened.
const scrapeRetryFor = 2 * time.Minute

// scrape takes the counters the processes' metrics hold: cheap enough to
// poll, unlike the audit log.
func (r *reader) scrape(ctx context.Context) (Counters, error) {
	ext, err := r.scrapeRetrying(ctx, capimanagement.TestExtensionName)
	if err != nil {
		return Counters{}, err
	}
	core, err := r.scrapeRetrying(ctx, capimanagement.CoreManagerName)
	if err != nil {
		return Counters{}, err
	}
	stats := r.extension.Stats()
	c := Counters{
		Requests:             byLabel(ext, "controller_runtime_webhook_requests_total", "webhook", hookpath.Hook),
		Reconciles:           byLabel(core, "controller_runtime_reconcile_total", "controller", nil),
		CacheLookups:         cacheLookups(core),
		ExtensionBusySeconds: stats.BusySeconds,
		ExtensionFailed:      map[string]float64{},
	}
	for hook, n := range stats.Failed {
		c.ExtensionFailed[hook] = float64(n)
	}
	return c, nil
}

// read takes every counter: first the CPU times, then the metrics, then
// the audit log's new lines, so that what reading costs the driver falls
// outside the CPU it reports.
func (r *reader) read(ctx context.Context) (Counters, error) {
	var c Counters
	pid := r.mgmt.CorePID()
	var err error
	if c.ProcessCPUSeconds, err = r.processCPUSeconds(); err != nil {
		return Counters{}, err
	}
	if c.HostBusySeconds, c.HostCPUSeconds, err = procstat.HostCPUSeconds(); err != nil {
		return Counters{}, err
	}
	if c.CPUSeconds, err = procstat.CPUSeconds(pid); err != nil {
		return Counters{}, err
	}
	if c.PeakRSSBytes, err = procstat.StatusBytes(pid, procstat.ResidentPeak); err != nil {
		return Counters{}, err
	}
	scraped, err := r.scrape(ctx)
	if err != nil {
		return Counters{}, err
	}
	c.Requests, c.Reconciles, c.CacheLookups = scraped.Requests, scraped.Reconciles, scraped.CacheLookups
	c.ExtensionBusySeconds, c.ExtensionFailed = scraped.ExtensionBusySeconds, scraped.ExtensionFailed
	counts, err := r.audit.Total()
	if err != nil {
		return Counters{}, err
	}
	own := counts[capimanagement.CoreManagerName]
	c.APIRequests, c.APIWrites = own.Requests, own.Writes
	return c, nil
}

// DriverName is this process's name among ProcessCPUSeconds.
const DriverName = "driver and slow extension"

// processCPUSeconds reads the CPU time of every process of the
// management cluster and of the driver.
func (r *reader) processCPUSeconds() (map[string]float64, error) {
	pids, err := r.mgmt.PIDs()
	if err != nil {
		return nil, err
	}
	pids[DriverName] = os.Getpid()
	out := map[string]float64{}
	for name, pid := range pids {
		if out[name], err = procstat.CPUSeconds(pid); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return out, nil
}

// byLabel sums a counter family by one label's value, mapped by key when
// set.
func byLabel(m managerprocess.Metrics, family, label string, key func(string) string) map[string]float64 {
	out := map[string]float64{}
	for _, series := range m[family].GetMetric() {
		for _, l := range series.GetLabel() {
			if l.GetName() != label {
				continue
			}
			k := l.GetValue()
			if key != nil {
				k = key(k)
			}
			out[k] += series.GetCounter().GetValue()
		}
	}
	return out
}

// cacheLookups reads the drop-in's runtime_sdk_response_cache_lookups_total
// by hook and result.
func cacheLookups(m managerprocess.Metrics) map[string]float64 {
	out := map[string]float64{}
	for _, series := range m["runtime_sdk_response_cache_lookups_total"].GetMetric() {
		var hook, result string
		for _, l := range series.GetLabel() {
			switch l.GetName() {
			case "hook":
				hook = l.GetValue()
			case "result":
				result = l.GetValue()
			}
		}
		out[hook+"/"+result] += series.GetCounter().GetValue()
	}
	return out
}

// scrapeRetrying scrapes one process, trying again as scrapeRetryFor
// says, and tells the progress log how long a scrape that failed took.
func (r *reader) scrapeRetrying(ctx context.Context, name string) (managerprocess.Metrics, error) {
	start := time.Now()
	tries := 0
	metrics, err := retrying(ctx, scrapeRetryFor, pollInterval, func() (managerprocess.Metrics, error) {
		tries++
		if err := r.mgmt.Exited(); err != nil {
			return nil, stopRetrying{err}
		}
		return r.mgmt.Scrape(ctx, name)
	})
	if tries > 1 && err == nil && r.progress != nil {
		r.progress(fmt.Sprintf("scraping %s took %d tries and %s: the times this poll stamps are late by as much", name, tries, time.Since(start).Round(time.Second)))
	}
	return metrics, err
}

// stopRetrying marks an error that retrying must not try again.
type stopRetrying struct{ error }

func (e stopRetrying) Unwrap() error { return e.error }

// retrying calls get until it succeeds, every interval, for at most
// within. It returns the last error with the tries and the time they
// took, or at once the error a get marked stopRetrying, or the context's.
func retrying[T any](ctx context.Context, within, interval time.Duration, get func() (T, error)) (T, error) {
	start := time.Now()
	for tries := 1; ; tries++ {
		got, err := get()
		if err == nil {
			return got, nil
		}
		var stop stopRetrying
		if errors.As(err, &stop) {
			return got, stop.error
		}
		if time.Since(start)+interval >= within {
			return got, fmt.Errorf("%w (%d tries in %s)", err, tries, time.Since(start).Round(time.Millisecond))
		}
		select {
		case <-ctx.Done():
			return got, errors.Join(ctx.Err(), err)
		case <-time.After(interval):
		}
	}
}
