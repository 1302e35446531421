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
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// smokeEnv runs the smoke test; it is not part of make test, whose budget
// one run does not fit.
const smokeEnv = "RSC_SCALE_SMOKE"

// One Cluster under the drop-in, without and with the response cache,
// behind a slow extension: every event is measured, the test extension
// serves GeneratePatches and ValidateTopology, each held for the latency,
// a leader change makes a new leader that brings the takeover's Cluster
// to Available, and with the cache on the generated objects are those it
// makes with it off.
func TestRun_SmokeOneClusterWithAndWithoutTheCache(t *testing.T) {
	if os.Getenv(smokeEnv) == "" {
		t.Skipf("set %s=1 to run the scale smoke test (about 15 minutes)", smokeEnv)
	}
	ctrllog.SetLogger(logr.Discard())
	const latency = 100 * time.Millisecond
	binDir := capimanagement.Require(t)
	template := capimanagement.TemplatePath(binDir, capimanagement.ScaleClusterTemplate)
	if env := os.Getenv("RSC_SCALE_TEMPLATE"); env != "" {
		template = env
	}
	var progress bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	o := Options{
		BinDir: binDir, Dir: t.TempDir(), ClusterTemplate: template, Clusters: 1, Concurrency: 5, AdditionalClasses: 1,
		SyncPeriod: 30 * time.Second, IdleMargin: 5 * time.Second, Quiet: 5 * time.Second, EventTimeout: 10 * time.Minute,
		CacheMaxAge: 5 * time.Minute, Progress: &progress,
		Latencies: []time.Duration{latency}, LeaderElection: true, LeaderChangeLatencies: []time.Duration{latency}, LeaderChangeWindow: 2 * time.Minute,
		Only: []string{EventCreate, EventIdle, EventUpgrade, EventLeaderChange, EventDelete},
	}
	w, err := RenderWorkload(ctx, binDir, template, o.Clusters, o.AdditionalClasses)
	if err != nil {
		t.Fatal(err)
	}
	results, err := Run(ctx, o, w, []Variant{DropIn, DropInCache}, nil)
	t.Log(progress.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Err != "" {
			t.Fatalf("%s: %s", r.Variant, r.Err)
		}
		// The leader change is measured apart.
		if want := len(o.Only) - 1; len(r.Events) != want {
			t.Errorf("%s measured %d events, want %d", r.Variant, len(r.Events), want)
		}
		create := r.Event(EventCreate)
		if create == nil || create.Requests[hookGeneratePatches] == 0 || create.Requests[hookValidateTopology] == 0 {
			t.Fatalf("%s: create served no GeneratePatches or ValidateTopology: %+v", r.Variant, create)
		}
		if busy, least := create.ExtensionBusySeconds[hookGeneratePatches], create.Requests[hookGeneratePatches]*latency.Seconds(); busy < least {
			t.Errorf("%s: the slow extension was busy with GeneratePatches %.2fs, want at least its latency per request, %.2fs", r.Variant, busy, least)
		}
		lc := r.LeaderChange
		if lc == nil || lc.ToLead <= 0 || lc.ToAvailable <= 0 || lc.Reconciles["topology/cluster"] == 0 {
			t.Errorf("%s: the leader change %+v: want a new leader that reconciled and the takeover's Cluster Available", r.Variant, lc)
		}
	}
	for _, line := range SpecCheck(results) {
		if strings.HasPrefix(line, "cache on vs off") && !strings.Contains(line, "equal") {
			t.Errorf("%s", line)
		}
	}
	var report bytes.Buffer
	(&Report{Command: "go test", Options: o, Results: results, Workload: w}).Write(&report)
	if err := os.WriteFile(filepath.Join(t.TempDir(), "report.md"), report.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log(report.String())
}
