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

package extensionconfig

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/shutdownhang"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

func TestResponseCacheMaxAge(t *testing.T) {
	now := metav1.Now()
	cases := []struct {
		name        string
		annotations map[string]string
		labels      map[string]string
		deleting    bool
		watchFilter string
		want        time.Duration
	}{
		{name: "a max age", annotations: map[string]string{userfacing.ResponseCacheMaxAgeAnnotation: "10m"}, want: 10 * time.Minute},
		{name: "no annotation"},
		{name: "not a duration", annotations: map[string]string{userfacing.ResponseCacheMaxAgeAnnotation: "ten minutes"}},
		{name: "not positive", annotations: map[string]string{userfacing.ResponseCacheMaxAgeAnnotation: "-1m"}},
		{name: "paused", annotations: map[string]string{userfacing.ResponseCacheMaxAgeAnnotation: "10m", clusterv1.PausedAnnotation: ""}},
		{name: "being deleted", annotations: map[string]string{userfacing.ResponseCacheMaxAgeAnnotation: "10m"}, deleting: true},
		{name: "another manager's", annotations: map[string]string{userfacing.ResponseCacheMaxAgeAnnotation: "10m"}, watchFilter: "mine"},
		{
			name: "this manager's", annotations: map[string]string{userfacing.ResponseCacheMaxAgeAnnotation: "10m"},
			labels: map[string]string{clusterv1.WatchLabel: "mine"}, watchFilter: "mine", want: 10 * time.Minute,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ext := &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: "ext", Annotations: tc.annotations, Labels: tc.labels}}
			if tc.deleting {
				ext.DeletionTimestamp = &now
			}
			if got := responseCacheMaxAge(ext, tc.watchFilter); got != tc.want {
				t.Errorf("responseCacheMaxAge = %v, want %v", got, tc.want)
			}
		})
	}
}

// A standby replica knows each config's max age from its own informer
// before it ever leads, so that the first topology pass after a takeover
// is answered from the cache; and forgets it when the config is deleted.
func TestStandby_KnowsEachConfigsMaxAgeBeforeItLeads(t *testing.T) {
	env.Skip(t)
	ctx := context.Background()
	// Another replica holds the Lease for an hour: this one stays standby.
	leaseNamespace := env.Namespace(t, nil)
	const leaseName = "extensionconfig-standby-test"
	if err := env.Client.Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: leaseNamespace, Name: leaseName},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity: ptr.To("the-leader"), LeaseDurationSeconds: ptr.To(int32(3600)),
			AcquireTime: &metav1.MicroTime{Time: time.Now()}, RenewTime: &metav1.MicroTime{Time: time.Now()},
		},
	}); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		LeaderElection: true, LeaderElectionID: leaseName, LeaderElectionNamespace: leaseNamespace,
	})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := rtclient.New(rtclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	policy := &maxAges{got: map[string]time.Duration{}}
	r := &Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Discoverer: rc, Registry: registry.New(),
		SecretMetadata: mgr.GetCache(), ResponseCache: policy,
	}
	runCtx, cancel := context.WithCancel(ctx)
	if err := r.SetupWithManager(runCtx, mgr, controller.Options{SkipNameValidation: ptr.To(true)}); err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	hangs := shutdownhang.Watch()
	go func() { done <- mgr.Start(runCtx) }()
	t.Cleanup(func() {
		cancel()
		hangs.Check(t, <-done)
	})

	ext := startExtension(t)
	name := uniqueName("standby")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA},
		map[string]string{userfacing.ResponseCacheMaxAgeAnnotation: "10m"})
	polltest.Eventually(t, eventually, "the standby told the cache 10m", func() (bool, string) {
		got, ok := policy.of(name)
		return ok && got == 10*time.Minute, "told " + got.String()
	})
	updateExtensionConfig(t, name, func(e *runtimev1.ExtensionConfig) {
		e.Annotations[userfacing.ResponseCacheMaxAgeAnnotation] = "5m"
	})
	polltest.Eventually(t, eventually, "the standby told the cache 5m", func() (bool, string) {
		got, _ := policy.of(name)
		return got == 5*time.Minute, "told " + got.String()
	})
	if err := env.Client.Delete(ctx, getExtensionConfig(t, name)); err != nil {
		t.Fatal(err)
	}
	polltest.Eventually(t, eventually, "the standby told the cache 0 once the config is gone", func() (bool, string) {
		got, _ := policy.of(name)
		return got == 0, "told " + got.String()
	})

	// It never led: no reconcile ran, and the extension was never called.
	select {
	case <-mgr.Elected():
		t.Fatal("the replica took the lead: the test proves nothing")
	default:
	}
	if n := ext.Server.Total(); n != 0 {
		t.Errorf("the standby called the extension %d times", n)
	}
}
