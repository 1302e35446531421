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
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/clusterclass"
	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/variablescache"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/queuetest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/variableschema"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
)

// However often a ClusterClass's reconcile failed, the controller's queue
// tries it again within userfacing.MaxRetryDelay.
func TestSetupWithManager_RetriesWithinTheCapHoweverOftenAReconcileFailed(t *testing.T) {
	env.Skip(t)
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	caller, err := rtclient.New(rtclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := extensionindex.IndexClusterClasses(ctx, mgr.GetFieldIndexer()); err != nil {
		t.Fatal(err)
	}
	r := &clusterclass.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Registry: registry.New(), Caller: caller,
		Cache:   variablescache.New[[]clusterv1.ClusterClassVariable](variablescache.Options{}),
		Schemas: &variableschema.Verdicts{},
	}
	options, limiters := queuetest.Capture(controller.Options{SkipNameValidation: ptr.To(true)})
	if err := r.SetupWithManager(mgr, options); err != nil {
		t.Fatal(err)
	}
	managertest.Run(t, ctx, cancel, mgr)
	queuetest.ExpectCapped(t, limiters, 30, userfacing.MaxRetryDelay, eventually)
}

// A ClusterClass whose extension comes back after a long outage publishes
// its variables within userfacing.MaxRetryDelay, without any event: no
// registration changes, and resyncs enqueue nothing.
func TestReconcile_AClusterClassBackAfterManyFailuresIsReadyWithinTheCap(t *testing.T) {
	// After 20 failures controller-runtime's default backoff waits past
	// its cap of 1000 s; the test would time out long before.
	const manyFailures = 20
	rec := &reconciles{counts: map[types.NamespacedName]int{}}
	startManagerWith(t, managertest.Options{Logger: rec.logger()})
	ext := startExtension(t, stringVariable("size", true))
	config := createExtensionConfig(t, ext, nil)
	ns := env.Namespace(t, nil)
	create(t, newClusterClass(ns, "cc", config))
	waitVariablesReady(t, ns, "cc", metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason)

	// The extension breaks, and a registration change voids its answer.
	ext.Server.SetFaults(discoverVariables, sampleextension.Faults{ErrorRate: 1})
	setSettings(t, config, map[string]string{"generation": "2"})
	waitVariablesReady(t, ns, "cc", metav1.ConditionFalse, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason, "HTTP 500")

	// Each annotation change reconciles it now, backoff or not, and each
	// reconcile fails, which grows its backoff.
	key := types.NamespacedName{Namespace: ns, Name: "cc"}
	base := rec.snapshot()[key]
	for i := 0; rec.snapshot()[key]-base < manyFailures; i++ {
		before := rec.snapshot()[key]
		cc := get(t, ns, "cc")
		patched := cc.DeepCopy()
		patched.Annotations = map[string]string{"retry-test/failure": strconv.Itoa(i)}
		if err := env.Client.Patch(context.Background(), patched, client.MergeFrom(cc)); err != nil {
			t.Fatal(err)
		}
		polltest.Eventually(t, eventually, "a failed reconcile", func() (bool, string) {
			got := rec.snapshot()[key] - before
			return got > 0, fmt.Sprintf("%d reconciles", got)
		})
	}
	// The last of them has ended too, and failed: the extension comes back
	// after it, not during it.
	polltest.Eventually(t, eventually, "no reconcile in flight", func() (bool, string) {
		m, err := managerprocess.Gather(ctrlmetrics.Registry)
		if err != nil {
			t.Fatal(err)
		}
		active := m.Sum("controller_runtime_active_workers", map[string]string{"controller": "clusterclass"})
		return active == 0, fmt.Sprintf("%v reconciles in flight", active)
	})
	waitVariablesReady(t, ns, "cc", metav1.ConditionFalse, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason, "HTTP 500")

	ext.Server.ResetFaults()
	healed := time.Now()
	polltest.Eventually(t, userfacing.MaxRetryDelay+30*time.Second, "VariablesReady again, with no event", func() (bool, string) {
		c := meta.FindStatusCondition(get(t, ns, "cc").Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition)
		if c == nil {
			return false, "no condition"
		}
		return c.Status == metav1.ConditionTrue, fmt.Sprintf("%s/%s: %s", c.Status, c.Reason, c.Message)
	})
	t.Logf("ready again %v after the extension came back", time.Since(healed).Round(time.Second))
}
