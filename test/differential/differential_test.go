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

package differential

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// binary is the read-only tools' binary (observe mode), and coreManager
// the drop-in core manager, built once for the package.
var binary, coreManager string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "differential-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "runtime-sdk-controller")
	// Built in the product's module, so that it links what make build links.
	buildController := exec.Command("go", "build", "-o", binary, "./cmd/runtime-sdk-controller")
	buildController.Dir = "../.."
	if out, err := buildController.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the read-only tools: %v\n%s", err, out)
		return 1
	}
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

// settleTimeout bounds how long either manager may take to write status.
const settleTimeout = 3 * time.Minute

// testExtensions are the fixture's extensions, each answering its
// config's variables, but ext-ignoring's, which fails every
// DiscoverVariables call under failurePolicy Ignore.
type testExtensions struct {
	all, teamA, oversized, ignoring Endpoint
	allServer, teamAServer          *sampleextension.Server
}

func extensions(t *testing.T) *testExtensions {
	t.Helper()
	vars := Variables()
	start := func(config string) (Endpoint, *sampleextension.Server) {
		opts := sampleextension.Options{Variables: map[string][]clusterv1.ClusterClassVariable{
			sampleextension.DiscoverVariablesHandler: vars[config],
		}}
		if config == ConfigIgnoring {
			opts.Handlers = IgnoringHandlers()
		}
		s := sampleextension.New(opts)
		url, ca, stop, err := sampleextension.StartTLS(s)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
		return Endpoint{URL: url, CA: ca}, s
	}
	e := &testExtensions{}
	e.all, e.allServer = start(ConfigAll)
	e.teamA, e.teamAServer = start(ConfigTeamA)
	e.oversized, _ = start(ConfigOversized)
	var ignoring *sampleextension.Server
	e.ignoring, ignoring = start(ConfigIgnoring)
	ignoring.SetFaults("DiscoverVariables", sampleextension.Faults{ErrorRate: 1})
	return e
}

// fixture builds the fixture on these extensions.
func (e *testExtensions) fixture(healthy bool) *Fixture {
	return NewFixture(Options{All: e.all, TeamA: e.teamA, Oversized: e.oversized, Ignoring: e.ignoring, Healthy: healthy})
}

// failDiscovery makes every Discovery call to both extensions fail, or
// lifts that; their other hooks keep answering.
func (e *testExtensions) failDiscovery(fail bool) {
	for _, s := range []*sampleextension.Server{e.allServer, e.teamAServer} {
		if fail {
			s.SetFaults("Discovery", sampleextension.Faults{ErrorRate: 1})
		} else {
			s.ResetFaults()
		}
	}
}

func TestStatus_IsWhatClusterAPIWritesForTheSameObjects(t *testing.T) {
	binDir := capimanagement.Require(t)
	ctx := context.Background()
	// Beside the sample extension, Cluster API's own test extension and
	// its in-memory ClusterClass: an extension no one here wrote.
	capiTest, err := NewCAPITestExtension(ctx, binDir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := extensions(t)
	f := NewFixture(Options{All: e.all, TeamA: e.teamA, Oversized: e.oversized, Ignoring: e.ignoring, CAPITest: capiTest})

	// Cluster API's manager starts before the fixture exists: its warm-up
	// would exit the process after 60 s on the unreachable extension.
	baseline := runUnder(t, ctx, f, "baseline", func(c *Cluster) (Manager, error) {
		return c.StartBaseline(ctx, binDir, "capi")
	})
	// The drop-in core manager runs our two controllers inside Cluster
	// API's manager: it must write what Cluster API's writes.
	dropIn := runUnder(t, ctx, f, "core-manager", func(c *Cluster) (Manager, error) {
		return c.StartDropIn(ctx, binDir, coreManager, "core-manager")
	})
	report(t, Compare(baseline, dropIn, AllowList))

	// Cluster API's test extension's variables reached every manager's
	// status: the comparison above is not of two empty lists.
	inMemory := "ClusterClass " + capiTest.ClusterClass.Namespace + "/" + capiTest.ClusterClass.Name + " .status.variables"
	for name, s := range map[string]Snapshot{"Cluster API": baseline, "the drop-in": dropIn} {
		if !strings.Contains(s[inMemory], `"kubeadmControlPlaneMaxSurge"`) {
			t.Errorf("%s: %s lacks the test extension's kubeadmControlPlaneMaxSurge: %.300s", name, inMemory, s[inMemory])
		}
	}

	// ext-ignoring's failing handler is ignored by Cluster API, as the
	// fixture says: the equality above is of a ready class with the other
	// patch's variables, not of two failures.
	ignored := "ClusterClass " + NamespaceA + "/failure-ignored .status"
	for name, s := range map[string]Snapshot{"Cluster API": baseline, "the drop-in": dropIn} {
		if s[ignored+".conditions[VariablesReady].status"] != string(metav1.ConditionTrue) ||
			!strings.Contains(s[ignored+".variables"], `"region"`) || strings.Contains(s[ignored+".variables"], "patch-"+ConfigIgnoring) {
			t.Errorf("%s: %s VariablesReady %s with variables %.300s; want True, ext-all's variables and none from patch-%s",
				name, ignored, s[ignored+".conditions[VariablesReady].status"], s[ignored+".variables"], ConfigIgnoring)
		}
	}

	// The response cache's condition is ours alone, True where the
	// annotation holds a duration and False naming a value that does not;
	// Cluster API writes none.
	for config, want := range map[string]metav1.ConditionStatus{ConfigIgnoring: metav1.ConditionTrue, ConfigOversized: metav1.ConditionFalse} {
		at := "ExtensionConfig " + config + " .status.conditions[ResponsesCached]"
		if got := dropIn[at+".status"]; got != string(want) {
			t.Errorf("the drop-in: %s = %q, want %s", at, got, want)
		}
		if got, ok := baseline[at+".status"]; ok {
			t.Errorf("Cluster API: %s = %q, want no such condition", at, got)
		}
	}

	// The allowance for too many variables is what it says: Cluster API
	// claims ready with nothing published, we refuse the answer and say so.
	at := "ClusterClass " + NamespaceOther + "/oversized-variables .status.conditions[VariablesReady]"
	variables := "ClusterClass " + NamespaceOther + "/oversized-variables .status.variables"
	if baseline[at+".status"] != string(metav1.ConditionTrue) || baseline[variables] != "null" {
		t.Errorf("Cluster API: %s = %s with variables %.200s; the allow-list says True with none published", at, baseline[at+".status"], baseline[variables])
	}
	if got := dropIn[at+".status"]; got != string(metav1.ConditionFalse) || !strings.Contains(dropIn[at+messageSuffix], "1000") {
		t.Errorf("the drop-in: %s = %q (%s); want False, naming the bound of 1000", at, got, dropIn[at+messageSuffix])
	}
}

// runUnder runs the fixture under one manager on a fresh control plane and
// returns what it wrote.
func runUnder(t *testing.T, ctx context.Context, f *Fixture, name string, start func(*Cluster) (Manager, error)) Snapshot {
	t.Helper()
	c := freshCluster(t, ctx, f, name)
	m := startManager(t, c, start)
	defer m.Stop()
	if err := f.Create(ctx, c.Client); err != nil {
		t.Fatal(err)
	}
	return settle(t, ctx, c, f, m)
}

// freshCluster starts a control plane for one run, stopped when the test ends.
func freshCluster(t *testing.T, ctx context.Context, f *Fixture, name string) *Cluster {
	t.Helper()
	binDir := capibaseline.Require(t)
	dir := filepath.Join(t.TempDir(), name)
	c, err := StartCluster(ctx, dir, binDir, f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	if f.TestExtension != nil {
		p, err := f.TestExtension.Start(ctx, binDir, c.KubeconfigPath(), filepath.Join(dir, "capi-test-extension.log"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Stop)
	}
	return c
}

func startManager(t *testing.T, c *Cluster, start func(*Cluster) (Manager, error)) Manager {
	t.Helper()
	m, err := start(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Stop)
	return m
}

func settle(t *testing.T, ctx context.Context, c *Cluster, f *Fixture, m Manager) Snapshot {
	t.Helper()
	s, err := c.Settle(ctx, f, m, settleTimeout)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func report(t *testing.T, c Comparison) {
	t.Helper()
	for _, d := range c.Allowed {
		t.Logf("allowed: %s\n  Cluster API: %s\n  ours:        %s\n  because: %s", d.Path, d.Baseline, d.Ours, d.Reason)
	}
	for _, d := range c.Messages {
		t.Logf("message wording: %s\n  Cluster API: %s\n  ours:        %s", d.Path, d.Baseline, d.Ours)
	}
	for _, d := range c.Unexplained {
		t.Errorf("differs: %s\n  Cluster API: %s\n  ours:        %s", d.Path, d.Baseline, d.Ours)
	}
}

// clusterClassesOnly keeps what a ClusterClass controller writes:
// ClusterClass status and template ownerReferences.
func clusterClassesOnly(s Snapshot) Snapshot {
	out := Snapshot{}
	for p, v := range s {
		if strings.HasPrefix(p, "ClusterClass ") || strings.HasPrefix(p, "Template ") {
			out[p] = v
		}
	}
	return out
}

// Cluster API's controllers write status and stop; the drop-in starts on
// the same objects while no extension answers Discovery. It must register every
// handler from what Cluster API recorded, under its real name, and
// reconcile every ClusterClass to the status Cluster API wrote.
func TestHandOver_FromClusterAPI_WarmsUpFromItsStatusWithoutDiscovery(t *testing.T) {
	binDir := capibaseline.Require(t)
	ctx := context.Background()
	e := extensions(t)
	f := e.fixture(false)
	c := freshCluster(t, ctx, f, "handover-from-capi")

	capi := startManager(t, c, func(c *Cluster) (Manager, error) { return c.StartBaseline(ctx, binDir, "capi") })
	if err := f.Create(ctx, c.Client); err != nil {
		t.Fatal(err)
	}
	written := settle(t, ctx, c, f, capi)
	capi.Stop()

	e.failDiscovery(true)
	// Our refreshed Discovery fails now, and says so.
	f.Settled["/"+ConfigAll], f.Settled["/"+ConfigTeamA] = metav1.ConditionFalse, metav1.ConditionFalse
	ours := startManager(t, c, func(c *Cluster) (Manager, error) { return c.StartDropIn(ctx, binDir, coreManager, "core-manager") })
	// Four configs discovered by Cluster API (not ext-down), three handlers each.
	polltest.Eventually(t, time.Minute, "every recorded handler registered and every ClusterClass reconciled", func() (bool, string) {
		metrics, err := ours.Scrape(ctx)
		if err != nil {
			return false, err.Error()
		}
		handlers := metrics.Sum("runtime_sdk_registered_handlers", nil)
		reconciles := metrics.Sum("controller_runtime_reconcile_total", map[string]string{"controller": "clusterclass"})
		return handlers == 12 && reconciles >= float64(len(f.ClusterClasses)),
			fmt.Sprintf("%v handlers registered, %v ClusterClass reconciles", handlers, reconciles)
	})
	after := settle(t, ctx, c, f, ours)
	report(t, Compare(clusterClassesOnly(written), clusterClassesOnly(after), AllowList))
	for _, config := range []string{ConfigAll, ConfigTeamA} {
		path := "ExtensionConfig " + config + " .status.handlers"
		if written[path] != after[path] {
			t.Errorf("%s changed under a failing Discovery:\n  Cluster API: %s\n  ours:        %s", path, written[path], after[path])
		}
	}

	// Still without Discovery, ext-team-a's selector now admits every
	// namespace. Ours applies it at once; Cluster API keeps the selector of
	// its last successful Discovery (and its warm-up cannot even finish
	// while Discovery fails, so it cannot be run here).
	ext := &runtimev1.ExtensionConfig{}
	if err := c.Client.Get(ctx, client.ObjectKey{Name: ConfigTeamA}, ext); err != nil {
		t.Fatal(err)
	}
	base := ext.DeepCopy()
	ext.Spec.NamespaceSelector = &metav1.LabelSelector{}
	if err := c.Client.Patch(ctx, ext, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	f.Settled[NamespaceB+"/not-admitted"] = metav1.ConditionTrue
	admitted := settle(t, ctx, c, f, ours)
	comparison := Compare(clusterClassesOnly(after), clusterClassesOnly(admitted), append(AllowList, SelectorBeforeDiscovery))
	report(t, comparison)
	if len(comparison.Allowed) == 0 {
		t.Error("the selector change made no difference: it was not applied while Discovery failed")
	}
}

// SelectorBeforeDiscovery is the allowance for a namespaceSelector changed
// while Discovery fails, which only the hand-over test reaches.
var SelectorBeforeDiscovery = Allowance{
	Path: regexp.MustCompile(`^ClusterClass ` + NamespaceB + `/not-admitted \.status\.`),
	Reason: "a namespaceSelector changed while the extension's Discovery fails: we apply it at once (admission is not part of Discovery), " +
		"Cluster API keeps the selector of its last successful Discovery until one succeeds",
}

// The drop-in writes status and stops; Cluster API's manager takes over
// on a fixture whose extensions all answer (its warm-up re-runs Discovery). It
// must reconcile without error and change nothing beyond the allow-list.
func TestHandOver_ToClusterAPI_ReconcilesWithoutErrorOrChange(t *testing.T) {
	binDir := capibaseline.Require(t)
	ctx := context.Background()
	e := extensions(t)
	f := e.fixture(true)
	c := freshCluster(t, ctx, f, "handover-to-capi")

	ours := startManager(t, c, func(c *Cluster) (Manager, error) { return c.StartDropIn(ctx, binDir, coreManager, "core-manager") })
	if err := f.Create(ctx, c.Client); err != nil {
		t.Fatal(err)
	}
	written := settle(t, ctx, c, f, ours)
	ours.Stop()
	// Kubeadm control plane reads ExtensionConfigs and requires this.
	for _, ext := range f.ExtensionConfigs {
		prefix := "ExtensionConfig " + ext.Name + " .status.conditions[Discovered]"
		if written[prefix+".status"] != "True" || written[prefix+".observedGeneration"] != "current" {
			t.Errorf("%s: status %s, observedGeneration %s; want True at the current generation",
				prefix, written[prefix+".status"], written[prefix+".observedGeneration"])
		}
	}

	capi := startManager(t, c, func(c *Cluster) (Manager, error) { return c.StartBaseline(ctx, binDir, "capi") })
	polltest.Eventually(t, time.Minute, "Cluster API reconciled every object", func() (bool, string) {
		ccTotal, _, err := ReconcileCounts(ctx, capi, "clusterclass")
		if err != nil {
			return false, err.Error()
		}
		extTotal, _, err := ReconcileCounts(ctx, capi, "extensionconfig")
		if err != nil {
			return false, err.Error()
		}
		return ccTotal >= int64(len(f.ClusterClasses)) && extTotal >= int64(len(f.ExtensionConfigs)),
			fmt.Sprintf("%d ClusterClass and %d ExtensionConfig reconciles", ccTotal, extTotal)
	})
	after := settle(t, ctx, c, f, capi)
	report(t, Compare(written, after, AllowList))
	for _, controller := range []string{"clusterclass", "extensionconfig"} {
		if _, errs, err := ReconcileCounts(ctx, capi, controller); err != nil || errs != 0 {
			t.Errorf("Cluster API's %s controller: %d reconcile errors (%v); see %s", controller, errs, err, capi.LogPath())
		}
	}
}
