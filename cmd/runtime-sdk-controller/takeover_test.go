package main

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/minimalclass"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextensiontest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

const discoverVariablesCalls = "DiscoverVariables/" + sampleextension.DiscoverVariablesHandler

// A standby warms its registry at start and may take over hours later. While
// the first replica leads, one ExtensionConfig is deleted, another's settings
// change and a third is added; then the leader is killed. The new leader must
// reconcile from the registrations the apiserver holds: no call to the
// deleted config, none with the old settings, and every ClusterClass agreeing
// with its inputs.
func TestBinary_NewLeaderReconcilesAgainstTheApiserversRegistrations(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane and two managers")
	}
	ctx := context.Background()
	cluster := startTestCluster(t)
	c, err := client.New(cluster.Config(), client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	const ns = "takeover"
	objects := []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}}
	for _, template := range minimalclass.Templates(ns) {
		objects = append(objects, template)
	}
	servers := map[string]*sampleextension.Running{}
	for _, name := range []string{"deleted", "changed", "added"} {
		servers[name] = sampleextensiontest.Start(t, sampleextension.Options{Variables: map[string][]clusterv1.ClusterClassVariable{
			sampleextension.DiscoverVariablesHandler: {{Name: "from-" + name, Required: new(bool),
				Schema: clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{Type: "string"}}}},
		}})
		objects = append(objects, minimalclass.ClusterClass(ns, "uses-"+name, clusterv1.ClusterClassPatch{
			Name: "p", External: &clusterv1.ExternalPatchDefinition{
				DiscoverVariablesExtension: registration.FullHandlerName(sampleextension.DiscoverVariablesHandler, name),
			},
		}))
	}
	config := func(name string, settings map[string]string) *runtimev1.ExtensionConfig {
		return &runtimev1.ExtensionConfig{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: runtimev1.ExtensionConfigSpec{
				ClientConfig:      runtimev1.ClientConfig{URL: servers[name].URL, CABundle: servers[name].CA},
				NamespaceSelector: &metav1.LabelSelector{},
				Settings:          settings,
			},
		}
	}
	objects = append(objects, config("deleted", nil), config("changed", map[string]string{"revision": "1"}))
	for _, obj := range objects {
		if err := c.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	variablesReady := func(want map[string]metav1.ConditionStatus) func() (bool, string) {
		return func() (bool, string) {
			got := map[string]metav1.ConditionStatus{}
			for name := range want {
				cc := &clusterv1.ClusterClass{}
				if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "uses-" + name}, cc); err != nil {
					return false, err.Error()
				}
				if cond := meta.FindStatusCondition(cc.Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition); cond != nil && cond.ObservedGeneration == cc.Generation {
					got[name] = cond.Status
				}
			}
			return maps.Equal(got, want), fmt.Sprintf("VariablesReady %v", got)
		}
	}

	binary := buildBinary(t)
	const lease = 4 * time.Second
	first := startReplica(t, binary, cluster.KubeconfigPath(), lease)
	first.awaitLeadership(t, time.Minute, "first")
	polltest.Eventually(t, time.Minute, "the first leader published", variablesReady(map[string]metav1.ConditionStatus{
		"deleted": metav1.ConditionTrue, "changed": metav1.ConditionTrue, "added": metav1.ConditionFalse,
	}))

	metricsPort, err := localcluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	probePort, err := localcluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	second := startReplica(t, binary, cluster.KubeconfigPath(), lease,
		"--metrics-bind-address=127.0.0.1:"+strconv.Itoa(metricsPort), "--metrics-secure=false", "--health-probe-bind-address=127.0.0.1:"+strconv.Itoa(probePort))
	metricsURL := "http://127.0.0.1:" + strconv.Itoa(metricsPort) + "/metrics"
	// The standby is ready once its registry is warm: it now holds the
	// registrations of this moment.
	readyz := "http://127.0.0.1:" + strconv.Itoa(probePort) + "/readyz"
	polltest.Eventually(t, time.Minute, "the standby warmed up", func() (bool, string) {
		resp, err := http.Get(readyz)
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, "readyz " + resp.Status
	})

	// Meanwhile, under the first leader.
	if err := c.Delete(ctx, &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: "deleted"}}); err != nil {
		t.Fatal(err)
	}
	changed := &runtimev1.ExtensionConfig{}
	if err := c.Get(ctx, client.ObjectKey{Name: "changed"}, changed); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(changed.DeepCopy())
	changed.Spec.Settings = map[string]string{"revision": "2"}
	if err := c.Patch(ctx, changed, patch); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, config("added", nil)); err != nil {
		t.Fatal(err)
	}
	want := map[string]metav1.ConditionStatus{"deleted": metav1.ConditionFalse, "changed": metav1.ConditionTrue, "added": metav1.ConditionTrue}
	polltest.Eventually(t, time.Minute, "the first leader followed", variablesReady(want))
	polltest.Eventually(t, time.Minute, "the first leader called with the new settings", func() (bool, string) {
		seen := servers["changed"].Server.SettingsSeen(discoverVariablesCalls)
		for _, s := range seen {
			if s["revision"] == "2" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("settings seen %v", seen)
	})

	for _, s := range servers {
		s.Server.ResetCalls()
	}
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	second.awaitLeadership(t, lease+30*time.Second, "second")
	polltest.Eventually(t, time.Minute, "the new leader reconciled every ClusterClass", func() (bool, string) {
		m, err := managerprocess.Scrape(ctx, metricsURL)
		if err != nil {
			return false, err.Error()
		}
		n := m.Sum("controller_runtime_reconcile_total", map[string]string{"controller": "clusterclass"})
		return n >= 3, fmt.Sprintf("%v reconciles", n)
	})
	polltest.Eventually(t, time.Minute, "every ClusterClass agrees with its inputs", variablesReady(want))
	if calls := servers["deleted"].Server.Calls()[discoverVariablesCalls]; calls != 0 {
		t.Errorf("the new leader called the deleted ExtensionConfig's handler %d times", calls)
	}
	for _, s := range servers["changed"].Server.SettingsSeen(discoverVariablesCalls) {
		if s["revision"] != "2" {
			t.Errorf("the new leader called with the old registration's settings %v", s)
		}
	}
}
