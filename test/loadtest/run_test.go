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
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// coreManager is the drop-in core manager, built once for the package.
var coreManager string

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "loadtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// The drop-in is a module of its own, built in its directory.
	coreManager = filepath.Join(dir, "core-manager")
	build := exec.Command("go", "build", "-o", coreManager, ".")
	build.Dir = "../../cmd/core-manager"
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the drop-in core manager: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// The seed scenario end to end under the drop-in: it must cost exactly the
// optimum for every event, and never more than the simulated scan.
func TestRun_SeedScenarioCostsTheOptimum(t *testing.T) {
	l := startLab(t)
	result, err := Run(context.Background(), SeedScenario(), l.options(DropInProcess(coreManager, l.binDir, l.kubeconfig, l.logDir)))
	if err != nil {
		t.Fatal(err)
	}
	if result.Controller != NameDropIn {
		t.Errorf("result names %q, want %q", result.Controller, NameDropIn)
	}
	if len(result.Rows) != 6 {
		t.Fatalf("got %d events, want 6", len(result.Rows))
	}
	for _, row := range result.Rows {
		if row.Reconciles != row.OptimumReconciles || int(row.Calls) != row.OptimumCalls {
			t.Errorf("%s: %d reconciles and %d calls, optimum %d and %d", row.Event, row.Reconciles, row.Calls, row.OptimumReconciles, row.OptimumCalls)
		}
		if int(row.DiscoveryCalls) != row.OptimumDiscovery {
			t.Errorf("%s: %d Discovery calls, optimum %d", row.Event, row.DiscoveryCalls, row.OptimumDiscovery)
		}
		if row.StaleAfter != 0 {
			t.Errorf("%s: %d ClusterClasses stale once the drop-in went quiet", row.Event, row.StaleAfter)
		}
		// A row with a note is an event Cluster API's scan does not see.
		if row.Note == "" && row.ScanReconciles < row.Reconciles {
			t.Errorf("%s: the scan reconciles %d, fewer than our %d: the accounting is off", row.Event, row.ScanReconciles, row.Reconciles)
		}
		if row.Reconciles > 0 && row.Enqueues == 0 {
			t.Errorf("%s: %d reconciles and no enqueue counted: the drop-in's enqueue metric is not read", row.Event, row.Reconciles)
		}
	}
	resync := result.Rows[0]
	if resync.Reconciles != 0 || resync.ScanReconciles == 0 {
		t.Errorf("resync: ours %d, scan %d; want 0 and more than 0", resync.Reconciles, resync.ScanReconciles)
	}

	var table bytes.Buffer
	if err := WriteTable(&table, result); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "update of every ExtensionConfig (annotation only)") {
		t.Errorf("table lacks the resync row:\n%s", table.String())
	}
	dir := t.TempDir()
	if err := WriteJSON(filepath.Join(dir, "results.json"), []*Result{result}); err != nil {
		t.Fatal(err)
	}
	svg := filepath.Join(dir, "chart.svg")
	if err := WriteSVG(svg, []*Result{result}); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(svg); err != nil || !bytes.Contains(data, []byte("<polyline")) {
		t.Errorf("chart has no lines: %v", err)
	}
}

func TestScenario_ReferencesAreDistinctAndSkewed(t *testing.T) {
	s := ScaleScenario(2000, 50, 10, 0.2)
	refs := s.references()
	counts := make([]int, s.ExtensionConfigs)
	for i, r := range refs {
		if len(r) != s.RefsPerClass || r[0] == r[1] {
			t.Fatalf("ClusterClass %d has references %v", i, r)
		}
		for _, c := range r {
			counts[c]++
		}
	}
	// A few popular extensions and a long tail: the most used config
	// serves many times the median.
	sorted := append([]int(nil), counts...)
	sort.Ints(sorted)
	maxCount := sorted[len(sorted)-1]
	if median := sorted[len(sorted)/2]; maxCount < 5*max(median, 1) {
		t.Errorf("most used config has %d references, median %d: not skewed", maxCount, median)
	}
}

// A comparison's chart draws Cluster API's measured lines in place of the
// simulated scan.
func TestWriteSVG_ComparisonDrawsClusterAPIsLines(t *testing.T) {
	row := func(reconciles int, calls int64) []Row {
		return []Row{{Event: "e", Reconciles: reconciles, Calls: calls}}
	}
	results := []*Result{
		{Controller: NameDropIn, Scenario: Scenario{ClusterClasses: 10}, Rows: row(1, 1)},
		{Controller: NameCAPI, Scenario: Scenario{ClusterClasses: 10}, Rows: row(20, 3)},
		{Controller: NameDropIn, Scenario: Scenario{ClusterClasses: 1000}, Rows: row(5, 1)},
		{Controller: NameCAPI, Scenario: Scenario{ClusterClasses: 1000}, Rows: row(2000, 9)},
	}
	path := filepath.Join(t.TempDir(), "chart.svg")
	if err := WriteSVG(path, results); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(data)
	for _, want := range []string{"Cluster API reconciles", "Cluster API calls", "our reconciles", "our calls"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	if strings.Contains(svg, "simulated") || strings.Count(svg, "<polyline") != 4 {
		t.Errorf("want four measured lines and no simulated one:\n%s", svg)
	}
}
