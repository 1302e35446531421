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
	"fmt"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/queuetest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// manyFailures is a run of failures after which controller-runtime's
// default backoff (5 ms doubling) waits 5 ms * 2^19, past its cap of
// 1000 s: the tests below would time out long before its next try.
const manyFailures = 20

// recovery bounds how long a test waits for a retry after the last
// failure: the cap and room for a loaded machine.
const recovery = userfacing.MaxRetryDelay + 30*time.Second

// However often a config's reconcile failed, the controller's queue tries
// it again within userfacing.MaxRetryDelay.
func TestSetupWithManager_RetriesWithinTheCapHoweverOftenAReconcileFailed(t *testing.T) {
	options, limiters := queuetest.Capture(controller.Options{})
	startControllerWith(t, rtclient.Options{}, 0, harnessOptions{controller: options})
	queuetest.ExpectCapped(t, limiters, 30, userfacing.MaxRetryDelay, eventually)
}

// failDiscoveries makes the config's next reconciles fail, one event each,
// until the extension has failed n Discovery calls since it broke: each
// is a failed reconcile, which grows the config's backoff.
func failDiscoveries(t *testing.T, ext *extension, name string, n int64) {
	t.Helper()
	base := ext.Server.Calls()["Discovery"]
	for i := 0; ext.Server.Calls()["Discovery"]-base < n; i++ {
		before := ext.Server.Calls()["Discovery"]
		// Each new value asks for a Discovery now, backoff or not.
		updateExtensionConfig(t, name, func(e *runtimev1.ExtensionConfig) {
			e.Annotations = map[string]string{userfacing.RediscoverAnnotation: strconv.Itoa(i)}
		})
		polltest.Eventually(t, eventually, "a failed Discovery", func() (bool, string) {
			got := ext.Server.Calls()["Discovery"] - before
			return got > 0, fmt.Sprintf("%d calls", got)
		})
	}
}

// An extension that comes back after a long outage is discovered again
// within userfacing.MaxRetryDelay, without any event: resyncs pass none,
// so backoff alone brings the config back.
func TestReconcile_AnExtensionBackAfterManyFailuresIsDiscoveredWithinTheCap(t *testing.T) {
	startController(t, rtclient.Options{}, 0)
	ext := startExtension(t)
	name := uniqueName("comeback")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}, nil)
	waitDiscovered(t, name, metav1.ConditionTrue)

	ext.Server.SetFaults("Discovery", sampleextension.Faults{ErrorRate: 1})
	failDiscoveries(t, ext, name, manyFailures)
	waitDiscovered(t, name, metav1.ConditionFalse, "HTTP 500")

	ext.Server.ResetFaults()
	healed := time.Now()
	polltest.Eventually(t, recovery, name+" discovered again, with no event", func() (bool, string) {
		ext := getExtensionConfig(t, name)
		for _, c := range ext.Status.Conditions {
			if c.Type == runtimev1.ExtensionConfigDiscoveredCondition {
				return c.Status == metav1.ConditionTrue, "Discovered=" + string(c.Status) + ": " + c.Message
			}
		}
		return false, "no Discovered condition"
	})
	t.Logf("discovered again %v after the extension came back", time.Since(healed).Round(time.Second))
}

// A CA Secret in a namespace the Secret watch cannot see (the drop-in's
// --namespace) is read within userfacing.MaxRetryDelay of its creation:
// a missing Secret is retried, not left to the watch.
func TestReconcile_ACASecretTheWatchCannotSeeIsInjectedWithinTheCap(t *testing.T) {
	watched := env.Namespace(t, nil)
	h := startControllerWith(t, rtclient.Options{}, 0, harnessOptions{
		cache: ctrlcache.Options{ByObject: map[client.Object]ctrlcache.ByObject{
			&corev1.Secret{}: {Namespaces: map[string]ctrlcache.Config{watched: {}}},
		}},
	})
	ext := startExtension(t)
	ns := env.Namespace(t, nil)
	name := uniqueName("unwatched-ca")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL},
		map[string]string{runtimev1.InjectCAFromSecretAnnotation: ns + "/extension-ca"})
	waitDiscovered(t, name, metav1.ConditionFalse, ns+"/extension-ca", "does not exist")
	// Nothing queued before the Secret exists reconciles it after: only a
	// retry can.
	afterQueuedEvents(t)

	if err := env.Client.Create(context.Background(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "extension-ca"},
		Data:       map[string][]byte{"ca.crt": ext.CA},
	}); err != nil {
		t.Fatal(err)
	}
	created := time.Now()
	// The watch cannot see it: only a retry can bring the config back.
	secrets := &metav1.PartialObjectMetadataList{}
	secrets.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("SecretList"))
	if err := h.mgr.GetCache().List(context.Background(), secrets, client.InNamespace(ns)); err == nil && len(secrets.Items) != 0 {
		t.Fatalf("the Secret watch sees %d Secrets in %s: the test proves nothing", len(secrets.Items), ns)
	}
	polltest.Eventually(t, recovery, name+" discovered with the Secret's CA", func() (bool, string) {
		got := getExtensionConfig(t, name)
		if string(got.Spec.ClientConfig.CABundle) != string(ext.CA) {
			return false, "caBundle not injected"
		}
		for _, c := range got.Status.Conditions {
			if c.Type == runtimev1.ExtensionConfigDiscoveredCondition {
				return c.Status == metav1.ConditionTrue, "Discovered=" + string(c.Status) + ": " + c.Message
			}
		}
		return false, "no Discovered condition"
	})
	t.Logf("injected and discovered %v after the Secret was created", time.Since(created).Round(time.Second))
}
