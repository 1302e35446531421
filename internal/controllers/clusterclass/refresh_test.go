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
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// An extension rolled out behind an unchanged registration (same endpoint,
// Discovery unchanged) answers DiscoverVariables differently: every
// ClusterClass using the answer follows within the cache's max age and a
// few seconds, with one call per refresh shared by all of them, and an
// unchanged answer afterwards writes nothing.
func TestRefresh_AnExtensionRolloutReachesEveryClusterClassUsingItsAnswer(t *testing.T) {
	const maxAge = 2 * time.Second
	startManagerWith(t, managertest.Options{Controllers: controllers.Options{VariablesCacheMaxAge: maxAge}})
	ext := startExtension(t, stringVariable("region", true))
	config := createExtensionConfig(t, ext, nil)
	ns := env.Namespace(t, nil)
	names := []string{"a", "b", "c"}
	for _, name := range names {
		create(t, newClusterClass(ns, name, config))
	}
	for _, name := range names {
		waitVariablesReady(t, ns, name, metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason)
	}

	ext.Server.ResetCalls()
	changedAt := time.Now()
	ext.Server.SetVariables(sampleextension.DiscoverVariablesHandler, []clusterv1.ClusterClassVariable{stringVariable("zone", true)})
	for _, name := range names {
		polltest.Eventually(t, maxAge+10*time.Second, name+" follows the rollout", func() (bool, string) {
			got := variableNames(get(t, ns, name))
			return got == "zone<external>", "variables " + got
		})
	}
	elapsed := time.Since(changedAt)
	// One call per refresh interval at most, whatever the number of users.
	if calls, most := ext.Server.Calls()[discoverVariables], int64(elapsed/maxAge)+1; calls > most {
		t.Errorf("%d DiscoverVariables calls in %s for 3 ClusterClasses, want at most %d (one per max age)", calls, elapsed.Round(time.Millisecond), most)
	}

	// The answer stays the same now: refreshes cost a call each, and no
	// ClusterClass is written again.
	versions := map[string]string{}
	for _, name := range names {
		versions[name] = get(t, ns, name).ResourceVersion
	}
	ext.Server.ResetCalls()
	counted := func() float64 {
		handler := registration.FullHandlerName(sampleextension.DiscoverVariablesHandler, config)
		return testutil.ToFloat64(metrics.ExtensionCalls.WithLabelValues("DiscoverVariables", handler, metrics.CallSuccess))
	}
	countedBefore := counted()
	polltest.Eventually(t, 4*maxAge+10*time.Second, "two unchanged refreshes", func() (bool, string) {
		calls := ext.Server.Calls()[discoverVariables]
		return calls >= 2, fmt.Sprintf("%d calls", calls)
	})
	// A refresh is a call like any other in runtime_sdk_extension_calls_total.
	if served, got := ext.Server.Calls()[discoverVariables], counted()-countedBefore; got < float64(served-1) || got > float64(served) {
		t.Errorf("runtime_sdk_extension_calls_total grew by %v while the extension served %d refresh calls", got, served)
	}
	for _, name := range names {
		if rv := get(t, ns, name).ResourceVersion; rv != versions[name] {
			t.Errorf("%s was written after an unchanged refresh (resourceVersion %s, was %s)", name, rv, versions[name])
		}
	}
}
