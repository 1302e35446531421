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

package clusterclass_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/quiet"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// rediscovery is short so that the periodic re-discovery, the stand-in
// for a resync, happens several times per test.
const rediscovery = 300 * time.Millisecond

// reconciles counts the ClusterClass controller's reconciles per object.
// controller-runtime hands each reconcile a logger of its own: the
// manager's, with the controller's name, the request's namespace and name,
// and a fresh reconcileID added as values. The counting sink counts those
// loggers as they are made, not any line logged through them, so neither
// a message's wording nor its verbosity matters, and the manager under
// test is the one operators run, with no hook added. controller-runtime's
// reconcile metric checks the total (see expectExactly).
type reconciles struct {
	mu     sync.Mutex
	counts map[types.NamespacedName]int
}

// logger returns a logger that counts the ClusterClass controller's
// reconciles into r.
func (r *reconciles) logger() logr.Logger {
	return logr.New(reconcileSink{counts: r})
}

func (r *reconciles) observe(key types.NamespacedName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts[key]++
}

// reconcileSink logs nothing; it sees the values each logger is made
// with, and counts a logger made for a reconcile of the clusterclass
// controller.
type reconcileSink struct {
	counts *reconciles
	values []any
}

func (s reconcileSink) Init(logr.RuntimeInfo)        {}
func (s reconcileSink) Enabled(int) bool             { return false }
func (s reconcileSink) Info(int, string, ...any)     {}
func (s reconcileSink) Error(error, string, ...any)  {}
func (s reconcileSink) WithName(string) logr.LogSink { return s }

func (s reconcileSink) WithValues(kv ...any) logr.LogSink {
	next := reconcileSink{counts: s.counts, values: append(slices.Clone(s.values), kv...)}
	if _, isReconcile := fields(kv)["reconcileID"]; !isReconcile {
		return next
	}
	if all := fields(next.values); all["controller"] == "clusterclass" {
		namespace, _ := all["namespace"].(string)
		name, _ := all["name"].(string)
		s.counts.observe(types.NamespacedName{Namespace: namespace, Name: name})
	}
	return next
}

// fields reads logr's key-value pairs; a later value of a key wins.
func fields(kv []any) map[string]any {
	out := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		if key, ok := kv[i].(string); ok {
			out[key] = kv[i+1]
		}
	}
	return out
}

func (r *reconciles) snapshot() map[types.NamespacedName]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.counts)
}

// since returns the objects reconciled after snapshot s, sorted.
func (r *reconciles) since(s map[types.NamespacedName]int) []string {
	var out []string
	for k, v := range r.snapshot() {
		if v > s[k] {
			out = append(out, k.String())
		}
	}
	sort.Strings(out)
	return out
}

// reconcileTotal is controller_runtime_reconcile_total of every
// clusterclass controller in this test binary: the tests run one manager
// at a time, so its growth during a test is that test's manager's.
func reconcileTotal(t *testing.T) int {
	t.Helper()
	m, err := managerprocess.Gather(ctrlmetrics.Registry)
	if err != nil {
		t.Fatal(err)
	}
	return int(m.Sum("controller_runtime_reconcile_total", map[string]string{"controller": "clusterclass"}))
}

// settled is what a test compares against once the controller is quiet:
// the reconciles per object, and controller-runtime's total.
type settled struct {
	counts map[types.NamespacedName]int
	total  int
}

func sameSettled(a, b settled) bool { return a.total == b.total && maps.Equal(a.counts, b.counts) }

type mappingHarness struct {
	t          *testing.T
	reconciles *reconciles
	ext        *extension
	config     string
}

// startMapping starts an extension, its ExtensionConfig (with selector),
// and the manager counting reconciles.
func startMapping(t *testing.T, selector *metav1.LabelSelector) *mappingHarness {
	t.Helper()
	rec := &reconciles{counts: map[types.NamespacedName]int{}}
	startManagerWith(t, managertest.Options{Controllers: controllers.Options{RediscoveryInterval: rediscovery}, Logger: rec.logger()})
	ext := startExtension(t, stringVariable("size", true))
	h := &mappingHarness{t: t, reconciles: rec, ext: ext, config: createExtensionConfig(t, ext, selector)}
	h.waitRediscoveries(1)
	return h
}

// waitRediscoveries waits until the extension has answered n more
// Discovery calls. Reconciles of one ExtensionConfig never overlap, so
// after n+1 calls the registrations of the first n are complete, and every
// ClusterClass they enqueued has been enqueued.
func (h *mappingHarness) waitRediscoveries(n int64) {
	h.t.Helper()
	base := h.ext.Server.Calls()["Discovery"]
	polltest.Eventually(h.t, eventually, fmt.Sprintf("%d more discoveries", n+1), func() (bool, string) {
		got := h.ext.Server.Calls()["Discovery"] - base
		return got >= n+1, fmt.Sprintf("%d so far", got)
	})
}

// settle waits until every listed ClusterClass has reconciled at least
// once since creation, then for the queue to drain: the counts, each read
// after a rediscovery, stay the same for a rediscovery interval.
func (h *mappingHarness) settle(names ...types.NamespacedName) settled {
	h.t.Helper()
	polltest.Eventually(h.t, eventually, "initial reconciles", func() (bool, string) {
		counts := h.reconciles.snapshot()
		for _, n := range names {
			if counts[n] == 0 {
				return false, n.String() + " not reconciled"
			}
		}
		return true, ""
	})
	// Let any follow-up reconcile (e.g. registration of the config after
	// the ClusterClass appeared) finish, and wait until they stop. The
	// sink counts a reconcile as it starts and the metric as it ends, so
	// both stay the same only once none is in flight.
	s, _, err := quiet.Wait(context.Background(), quiet.Options{Quiet: rediscovery, Timeout: eventually, Interval: polltest.PollInterval},
		sameSettled, func() (settled, bool, error) {
			h.waitRediscoveries(1)
			return settled{counts: h.reconciles.snapshot(), total: reconcileTotal(h.t)}, true, nil
		})
	if err != nil {
		h.t.Fatalf("reconciles to stop: %v", err)
	}
	return s
}

// expectExactly waits until exactly want have reconciled since s, then
// checks through two more rediscoveries that nothing else does, and that
// controller-runtime's metric counted every reconcile the sink did.
func (h *mappingHarness) expectExactly(s settled, want ...types.NamespacedName) {
	h.t.Helper()
	wantNames := make([]string, 0, len(want))
	for _, w := range want {
		wantNames = append(wantNames, w.String())
	}
	sort.Strings(wantNames)
	polltest.Eventually(h.t, eventually, "expected reconciles", func() (bool, string) {
		got := h.reconciles.since(s.counts)
		return strings.Join(got, " ") == strings.Join(wantNames, " "), fmt.Sprintf("reconciled %v, want %v", got, wantNames)
	})
	h.waitRediscoveries(2)
	if got := h.reconciles.since(s.counts); strings.Join(got, " ") != strings.Join(wantNames, " ") {
		h.t.Errorf("reconciled %v, want exactly %v", got, wantNames)
	}
	now := h.reconciles.snapshot()
	for _, w := range want {
		if extra := now[w] - s.counts[w]; extra > 1 {
			h.t.Errorf("%s reconciled %d times for one event", w, extra)
		}
	}
	counted := 0
	for k, v := range now {
		counted += v - s.counts[k]
	}
	// The metric counts a reconcile once it ends, the sink as it starts.
	polltest.Eventually(h.t, eventually, "controller_runtime_reconcile_total to agree with the reconciles counted", func() (bool, string) {
		total := reconcileTotal(h.t) - s.total
		return total == counted, fmt.Sprintf("controller_runtime_reconcile_total{controller=clusterclass} grew by %d, the reconciles counted by %d", total, counted)
	})
}

type ref struct{ field, handler string }

// classWithRefs builds a ClusterClass with one external patch per reference.
func classWithRefs(namespace, name string, refs ...ref) *clusterv1.ClusterClass {
	cc := newClusterClass(namespace, name, "unused")
	cc.Spec.Patches = nil
	for i, r := range refs {
		ext := &clusterv1.ExternalPatchDefinition{}
		switch r.field {
		case extensionindex.FieldGeneratePatches:
			ext.GeneratePatchesExtension = r.handler
		case extensionindex.FieldValidateTopology:
			ext.ValidateTopologyExtension = r.handler
		default:
			ext.DiscoverVariablesExtension = r.handler
		}
		cc.Spec.Patches = append(cc.Spec.Patches, clusterv1.ClusterClassPatch{Name: fmt.Sprintf("p%d", i), External: ext})
	}
	return cc
}

func (h *mappingHarness) handler(name string) string { return name + "." + h.config }

func key(cc *clusterv1.ClusterClass) types.NamespacedName {
	return types.NamespacedName{Namespace: cc.Namespace, Name: cc.Name}
}

func createAll(t *testing.T, ccs ...*clusterv1.ClusterClass) []types.NamespacedName {
	t.Helper()
	keys := make([]types.NamespacedName, 0, len(ccs))
	for _, cc := range ccs {
		create(t, cc)
		keys = append(keys, key(cc))
	}
	return keys
}

func TestMapping_ResyncStatusWritesAndAnnotationChurnEnqueueNothing(t *testing.T) {
	h := startMapping(t, nil)
	ns := env.Namespace(t, nil)
	keys := createAll(t,
		classWithRefs(ns, "discover", ref{extensionindex.FieldDiscoverVariables, h.handler(sampleextension.DiscoverVariablesHandler)}),
		classWithRefs(ns, "generate", ref{extensionindex.FieldGeneratePatches, h.handler(sampleextension.GeneratePatchesHandler)}),
	)
	s := h.settle(keys...)
	enqueuedBefore := testutil.ToFloat64(metrics.ClusterClassEnqueued.WithLabelValues(metrics.TriggerExtensionConfig))
	unchangedBefore := testutil.ToFloat64(metrics.ExtensionConfigEvents.WithLabelValues(metrics.EventUnchanged))

	// Periodic re-discoveries find the same handlers.
	h.waitRediscoveries(3)
	// A status-only write by someone else.
	ext := &runtimev1.ExtensionConfig{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Name: h.config}, ext); err != nil {
		t.Fatal(err)
	}
	// Merge patches: the controller's rediscoveries keep running, and a
	// status write of theirs between a read and an update would make an
	// update conflict.
	base := ext.DeepCopy()
	meta.SetStatusCondition(&ext.Status.Conditions, metav1.Condition{Type: "Audited", Status: metav1.ConditionTrue, Reason: "Audited"})
	if err := env.Client.Status().Patch(context.Background(), ext, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	// Label and annotation churn.
	base = ext.DeepCopy()
	ext.Labels = map[string]string{"churn": "1"}
	ext.Annotations = map[string]string{"note": "churn"}
	if err := env.Client.Patch(context.Background(), ext, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	h.expectExactly(s)
	if got := testutil.ToFloat64(metrics.ClusterClassEnqueued.WithLabelValues(metrics.TriggerExtensionConfig)) - enqueuedBefore; got != 0 {
		t.Errorf("runtime_sdk_clusterclass_enqueued_total{trigger=extensionconfig} grew by %v", got)
	}
	if got := testutil.ToFloat64(metrics.ExtensionConfigEvents.WithLabelValues(metrics.EventUnchanged)) - unchangedBefore; got < 3 {
		t.Errorf("runtime_sdk_extensionconfig_events_total{outcome=unchanged} grew by %v, want at least the 3 re-discoveries", got)
	}
}

func TestMapping_TimeoutChangeReconcilesOnlyReferencersOfThatHandler(t *testing.T) {
	h := startMapping(t, nil)
	ns := env.Namespace(t, nil)
	gen1 := classWithRefs(ns, "gen-1", ref{extensionindex.FieldGeneratePatches, h.handler(sampleextension.GeneratePatchesHandler)})
	gen2 := classWithRefs(ns, "gen-2",
		ref{extensionindex.FieldGeneratePatches, h.handler(sampleextension.GeneratePatchesHandler)},
		ref{extensionindex.FieldDiscoverVariables, h.handler(sampleextension.DiscoverVariablesHandler)})
	discoverOnly := classWithRefs(ns, "discover", ref{extensionindex.FieldDiscoverVariables, h.handler(sampleextension.DiscoverVariablesHandler)})
	validateOnly := classWithRefs(ns, "validate", ref{extensionindex.FieldValidateTopology, h.handler(sampleextension.ValidateTopologyHandler)})
	s := h.settle(createAll(t, gen1, gen2, discoverOnly, validateOnly)...)

	handlers := sampleextension.DefaultHandlers()
	for i := range handlers {
		if handlers[i].Name == sampleextension.GeneratePatchesHandler {
			handlers[i].TimeoutSeconds = ptr.To[int32](20)
		}
	}
	h.ext.Server.SetHandlers(handlers)
	h.expectExactly(s, key(gen1), key(gen2))
}

func TestMapping_RemovedHandlerReconcilesItsReferencersWhichReportIt(t *testing.T) {
	h := startMapping(t, nil)
	ns := env.Namespace(t, nil)
	validate := classWithRefs(ns, "validate", ref{extensionindex.FieldValidateTopology, h.handler(sampleextension.ValidateTopologyHandler)})
	discover := classWithRefs(ns, "discover", ref{extensionindex.FieldDiscoverVariables, h.handler(sampleextension.DiscoverVariablesHandler)})
	s := h.settle(createAll(t, validate, discover)...)

	var kept []runtimehooksv1.ExtensionHandler
	for _, handler := range sampleextension.DefaultHandlers() {
		if handler.Name != sampleextension.ValidateTopologyHandler {
			kept = append(kept, handler)
		}
	}
	h.ext.Server.SetHandlers(kept)
	h.expectExactly(s, key(validate))

	got := get(t, ns, "validate")
	c := meta.FindStatusCondition(got.Status.Conditions, userfacing.ExtensionsResolvedCondition)
	if c == nil || c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, h.handler(sampleextension.ValidateTopologyHandler)) ||
		!strings.Contains(c.Message, "not registered") || !strings.Contains(c.Message, h.config) {
		t.Errorf("ExtensionsResolved = %+v, want False naming the handler and its ExtensionConfig", c)
	}
}

func TestMapping_SelectorChangeReconcilesOnlyClusterClassesWhoseAdmissionFlips(t *testing.T) {
	h := startMapping(t, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}})
	nsA := env.Namespace(t, map[string]string{"team": "a"})
	nsB := env.Namespace(t, map[string]string{"team": "b"})
	nsC := env.Namespace(t, map[string]string{"team": "c"})
	refs := ref{extensionindex.FieldDiscoverVariables, h.handler(sampleextension.DiscoverVariablesHandler)}
	inA, inB, inC := classWithRefs(nsA, "cc", refs), classWithRefs(nsB, "cc", refs), classWithRefs(nsC, "cc", refs)
	s := h.settle(createAll(t, inA, inB, inC)...)

	ext := &runtimev1.ExtensionConfig{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Name: h.config}, ext); err != nil {
		t.Fatal(err)
	}
	ext.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "b"}}
	if err := env.Client.Update(context.Background(), ext); err != nil {
		t.Fatal(err)
	}
	h.expectExactly(s, key(inA), key(inB))
	waitVariablesReady(t, nsB, "cc", metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason)
	waitVariablesReady(t, nsA, "cc", metav1.ConditionFalse, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason, "not admitted")
}

func TestMapping_NamespaceLabelFlipReconcilesAffectedClusterClassesInThatNamespace(t *testing.T) {
	h := startMapping(t, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}})
	other := startExtension(t, stringVariable("size", true))
	unrestricted := createExtensionConfig(t, other, nil)
	ns := env.Namespace(t, map[string]string{"team": "a"})
	elsewhere := env.Namespace(t, map[string]string{"team": "a"})
	refs := ref{extensionindex.FieldDiscoverVariables, h.handler(sampleextension.DiscoverVariablesHandler)}
	first, second := classWithRefs(ns, "first", refs), classWithRefs(ns, "second", refs)
	unaffected := classWithRefs(ns, "unrestricted", ref{extensionindex.FieldDiscoverVariables, registration.FullHandlerName(sampleextension.DiscoverVariablesHandler, unrestricted)})
	otherNamespace := classWithRefs(elsewhere, "first", refs)
	s := h.settle(createAll(t, first, second, unaffected, otherNamespace)...)

	namespace := &corev1.Namespace{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Name: ns}, namespace); err != nil {
		t.Fatal(err)
	}
	enqueuedBefore := testutil.ToFloat64(metrics.ClusterClassEnqueued.WithLabelValues(metrics.TriggerNamespace))
	namespace.Labels["team"] = "b"
	if err := env.Client.Update(context.Background(), namespace); err != nil {
		t.Fatal(err)
	}
	h.expectExactly(s, key(first), key(second))
	if got := testutil.ToFloat64(metrics.ClusterClassEnqueued.WithLabelValues(metrics.TriggerNamespace)) - enqueuedBefore; got != 2 {
		t.Errorf("runtime_sdk_clusterclass_enqueued_total{trigger=namespace} grew by %v, want 2", got)
	}
	waitVariablesReady(t, ns, "first", metav1.ConditionFalse, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason, "not admitted")
}

func TestMapping_DeletedExtensionConfigReconcilesItsReferencers(t *testing.T) {
	h := startMapping(t, nil)
	other := startExtension(t, stringVariable("size", true))
	otherConfig := createExtensionConfig(t, other, nil)
	ns := env.Namespace(t, nil)
	referencer := classWithRefs(ns, "referencer", ref{extensionindex.FieldGeneratePatches, h.handler(sampleextension.GeneratePatchesHandler)})
	bystander := classWithRefs(ns, "bystander", ref{extensionindex.FieldGeneratePatches, registration.FullHandlerName(sampleextension.GeneratePatchesHandler, otherConfig)})
	s := h.settle(createAll(t, referencer, bystander)...)

	if err := env.Client.Delete(context.Background(), &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: h.config}}); err != nil {
		t.Fatal(err)
	}
	// The deleted config is no longer discovered; the other one is the
	// clock now.
	h.ext = other
	h.expectExactly(s, key(referencer))
	got := get(t, ns, "referencer")
	if c := meta.FindStatusCondition(got.Status.Conditions, userfacing.ExtensionsResolvedCondition); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("ExtensionsResolved = %+v, want False after the config was deleted", c)
	}
}
