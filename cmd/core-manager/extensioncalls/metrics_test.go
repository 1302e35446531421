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

package extensioncalls

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
)

// Calls land in Cluster API's metric names and labels: a call that got no
// answer as code <error> and status Unknown, an answered one by its codes.
func TestObserve_RecordsCallsAsClusterAPIsClientDoes(t *testing.T) {
	hook := runtimecatalog.GroupVersionHook{Group: "hooks.runtime.cluster.x-k8s.io", Version: "v1alpha1", Hook: "GeneratePatches"}
	// The metrics are the process's: count what this test adds.
	cases := []struct{ code, status string }{{"<error>", "Unknown"}, {"200", "Success"}}
	count := func(code, status string) float64 {
		return testutil.ToFloat64(requestsTotal.WithLabelValues(code, "ext.test:443", hook.Group, hook.Version, hook.Hook, status))
	}
	before := map[string]float64{}
	for _, c := range cases {
		before[c.code] = count(c.code, c.status)
	}
	Observe(rtclient.CallRecord{Host: "ext.test:443", Hook: hook, Duration: time.Second})
	Observe(rtclient.CallRecord{Host: "ext.test:443", Hook: hook, HTTPStatus: 200, ResponseStatus: runtimehooksv1.ResponseStatusSuccess, Duration: time.Millisecond})

	for _, c := range cases {
		if got := count(c.code, c.status) - before[c.code]; got != 1 {
			t.Errorf("requests_total{code=%q,status=%q} grew by %v, want 1", c.code, c.status, got)
		}
	}
	if n := testutil.CollectAndCount(requestDuration, "capi_runtime_sdk_request_duration_seconds"); n != 1 {
		t.Errorf("%d duration series, want 1", n)
	}
	// Both are served from the manager's registry under Cluster API's names.
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range families {
		if strings.HasPrefix(f.GetName(), "capi_runtime_sdk_") {
			names = append(names, f.GetName())
		}
	}
	if strings.Join(names, " ") != "capi_runtime_sdk_request_duration_seconds capi_runtime_sdk_requests_total" {
		t.Errorf("registered %v", names)
	}
}
