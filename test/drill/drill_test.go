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
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/minimalclass"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/proctest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
)

var (
	cluster *localcluster.Cluster
	env     Env
	// missing says why the drills cannot run: Cluster API's CRDs, which
	// the drop-in needs, are not in the tool directory.
	missing error
)

// TestMain builds the drop-in core manager and starts one local control
// plane, serving Cluster API's CRDs, that the drills share, one after the
// other.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	ctrl.SetLogger(logr.Discard())
	if testing.Short() {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "drill-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir, err := toolbin.Dir()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// The drop-in runs every Cluster API core controller: the control
	// plane serves every core CRD, as `make capi-baseline` copies them.
	crds, err := capibaseline.CRDs(binDir)
	if errors.Is(err, capibaseline.ErrMissing) {
		missing = err
		return m.Run()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	crds = append(crds, minimalclass.TemplateCRDs()...)
	binary := filepath.Join(dir, "core-manager")
	// Under -race the drop-in is built with the race detector as well, so
	// the drills also hunt data races in the process under fault.
	build := []string{"build", "-o", binary}
	if raceEnabled {
		build = append(build, "-race")
	}
	// A module of its own, built in its directory as make core-manager does.
	buildCmd := exec.Command("go", append(build, ".")...)
	buildCmd.Dir = "../../cmd/core-manager"
	if out, err := buildCmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the drop-in core manager: %v\n%s", err, out)
		return 1
	}
	cluster, err = localcluster.Start(context.Background(), localcluster.Options{Dir: filepath.Join(dir, "cluster"), BinDir: binDir, CRDs: crds})
	if err != nil {
		fmt.Fprintf(os.Stderr, "local control plane: %v\n", err)
		return 1
	}
	defer cluster.Stop()
	config := cluster.Config()
	config.QPS, config.Burst = 500, 1000
	env = Env{Config: config, Kubeconfig: cluster.KubeconfigPath(), Binary: binary, LogDir: dir}
	code := m.Run()
	if code != 0 {
		// The drop-in's logs say why; they vanish with the directory.
		for _, name := range []string{"flap", "restart", "soak", "property"} {
			if data, err := os.ReadFile(filepath.Join(dir, name+"-controller.log")); err == nil {
				fmt.Fprintf(os.Stderr, "--- last of %s-controller.log:\n%s\n", name, proctest.Tail(string(data), 40))
			}
		}
	}
	return code
}

// skipShort skips a drill under -short, and when Cluster API's CRDs are
// missing unless under CI (CI=true), where `make test` must have built
// them.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the drop-in core manager on a local control plane")
	}
	if missing != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: %v", missing)
		}
		t.Skip(missing)
	}
}

// noRace fails the test when the race detector reported anything in the
// drill's controller log.
func noRace(t *testing.T, drill string) {
	t.Helper()
	// A drill may run more than one controller, each with its own log.
	logs, err := filepath.Glob(filepath.Join(env.LogDir, drill+"-*.log"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no controller log of the %s drill: %v", drill, err)
	}
	for _, log := range logs {
		data, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		if i := bytes.Index(data, []byte("WARNING: DATA RACE")); i >= 0 {
			t.Errorf("the controller raced during the %s drill (%s):\n%s", drill, filepath.Base(log), proctest.Tail(string(data[i:]), 60))
		}
	}
}

// logAndJudge logs a drill's report and fails the test on every problem
// its verdict names.
func logAndJudge(t *testing.T, r Report) {
	t.Helper()
	var out bytes.Buffer
	if err := r.Write(&out); err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	for _, problem := range r.Problems() {
		t.Error(problem)
	}
}

func TestFlap_BacksOffKeepsVariablesAndHeals(t *testing.T) {
	skipShort(t)
	o := FlapOptions{ClusterClasses: 30, ExtensionConfigs: 3, Duration: 40 * time.Second, Phase: 5 * time.Second,
		ChangeEvery: 4 * time.Second, Window: 5 * time.Second, Timeout: 2 * time.Minute}
	r, err := Flap(context.Background(), env, o)
	noRace(t, "flap")
	if err != nil {
		t.Fatal(err)
	}
	logAndJudge(t, r)
}

func TestRestart_ControllerRidesOutAnAPIServerOutage(t *testing.T) {
	skipShort(t)
	o := RestartOptions{ClusterClasses: 120, ExtensionConfigs: 4, StopAt: 0.2, Outage: 10 * time.Second, Timeout: 3 * time.Minute}
	r, err := Restart(context.Background(), env, cluster, o)
	noRace(t, "restart")
	if err != nil {
		t.Fatal(err)
	}
	logAndJudge(t, r)
}

func TestSoak_CacheStaysBoundedAndEmptiesWhenHandlersGo(t *testing.T) {
	skipShort(t)
	o := SoakOptions{ClusterClasses: 300, ExtensionConfigs: 10, Namespaces: 6, Duration: 40 * time.Second,
		ChangeEvery: 500 * time.Millisecond, SampleEvery: 4 * time.Second, Timeout: 3 * time.Minute}
	r, err := Soak(context.Background(), env, o)
	noRace(t, "soak")
	if err != nil {
		t.Fatal(err)
	}
	logAndJudge(t, r)
	if r.CacheEntriesMax < int64(o.ExtensionConfigs) {
		t.Errorf("the call cache never held more than %d entries: the soak did not fill it", r.CacheEntriesMax)
	}
	if r.CacheEmptied == 0 {
		t.Error("the cache was never seen empty after the ExtensionConfigs were deleted")
	}
}

// TestProperty_EveryStatusEqualsAFreshControllers runs a short property
// drill: random events, every other round one where Discovery of configs
// fails while their settings or CA change, and after each round a
// fresh controller that must find nothing to write. PROPERTY_SEED repeats
// a run.
func TestProperty_EveryStatusEqualsAFreshControllers(t *testing.T) {
	skipShort(t)
	o := PropertyOptions{Rounds: 6, ClusterClasses: 12, ExtensionConfigs: 4, Namespaces: 3, MaxEventsPerRound: 4,
		MaxSpacing: 500 * time.Millisecond, Quiet: 1500 * time.Millisecond, Timeout: 2 * time.Minute,
		FailureRoundEvery: 2}
	if seed := os.Getenv("PROPERTY_SEED"); seed != "" {
		var err error
		if o.Seed, err = strconv.ParseUint(seed, 10, 64); err != nil {
			t.Fatalf("PROPERTY_SEED: %v", err)
		}
	} else {
		o.Seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (PROPERTY_SEED=%d repeats it)", o.Seed, o.Seed)
	r, err := Property(context.Background(), env, o)
	noRace(t, "property")
	if err != nil {
		t.Fatal(err)
	}
	logAndJudge(t, r)
	if r.Totals.Events < o.Rounds {
		t.Errorf("%d events in %d rounds", r.Totals.Events, o.Rounds)
	}
	changed := 0
	for _, kind := range failingChanges {
		changed += r.WhileFailing[kind]
	}
	if changed == 0 {
		t.Errorf("no settings or CA change while Discovery failed (made while failing: %v)", r.WhileFailing)
	}
}
