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

package devrun

import (
	"bytes"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

func TestPointAtExtension_RewritesOnlyTheURLsItIsGiven(t *testing.T) {
	config := func(url string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"kind": "ExtensionConfig"}}
		_ = unstructured.SetNestedField(u.Object, url, "spec", "clientConfig", "url")
		return u
	}
	urls := map[string]string{"https://" + DefaultExtensionAddress: "https://127.0.0.1:19443", "https://127.0.0.1:9445": "https://127.0.0.1:34567"}
	for _, tc := range []struct{ url, want string }{
		{"https://" + DefaultExtensionAddress, "https://127.0.0.1:19443"},
		{"https://127.0.0.1:9445", "https://127.0.0.1:34567"},
		{"https://elsewhere:443", "https://elsewhere:443"},
	} {
		u := config(tc.url)
		pointAtExtension(u, urls)
		if got, _, _ := unstructured.NestedString(u.Object, "spec", "clientConfig", "url"); got != tc.want {
			t.Errorf("%s became %s, want %s", tc.url, got, tc.want)
		}
	}
}

func TestCheckCoreManagerArgs_RefusesWhatTheLauncherSets(t *testing.T) {
	if err := checkCoreManagerArgs([]string{"--v=4", "--cluster-concurrency", "4"}); err != nil {
		t.Errorf("core manager flags of its own: %v", err)
	}
	for _, arg := range []string{"--diagnostics-address=:9000", "-kubeconfig", "--webhook-port", "--feature-gates=RuntimeSDK=false"} {
		if err := checkCoreManagerArgs([]string{arg}); err == nil || !strings.Contains(err.Error(), "set by rsc-dev") {
			t.Errorf("%s: %v, want a refusal", arg, err)
		}
	}
}

func TestCheckPorts_NamesATakenPortWithTheFlagThatMovesIt(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	free := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().String()
	}
	for _, tc := range []struct {
		name string
		o    Options
		flag string
	}{
		{"extension", Options{ExtensionAddress: taken.Addr().String(), ExtensionAdminAddress: free(), TestExtensionPort: 1}, "--extension-address " + taken.Addr().String()},
		{"admin", Options{ExtensionAddress: free(), ExtensionAdminAddress: taken.Addr().String(), TestExtensionPort: 1}, "--extension-admin-address " + taken.Addr().String()},
	} {
		err := checkPorts(tc.o)
		if err == nil || !strings.HasPrefix(err.Error(), tc.flag+" is in use") {
			t.Errorf("%s: %v, want it to start %q", tc.name, err, tc.flag+" is in use")
		}
	}
}

func TestStopLogged_SaysStoppingBeforeAndStoppedOnceTheStopReturned(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, "stopping sample extension\n(stop runs)\nsample extension stopped\n"},
		{errors.New("sample-extension did not stop within 5s and was killed"),
			"stopping sample extension\n(stop runs)\nstop sample extension: sample-extension did not stop within 5s and was killed\nsample extension stopped\n"},
	} {
		var out bytes.Buffer
		stopLogged(&out, "sample extension", func() error {
			out.WriteString("(stop runs)\n")
			return tc.err
		})
		if out.String() != tc.want {
			t.Errorf("stop returning %v: wrote %q, want %q", tc.err, out.String(), tc.want)
		}
	}
}

func TestClusterStates_NameEachClusterWithItsPhaseAndAvailability(t *testing.T) {
	cluster := func(ns, name, phase string, available metav1.ConditionStatus) clusterv1.Cluster {
		c := clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		c.Status.Phase = phase
		if available != "" {
			c.Status.Conditions = []metav1.Condition{{Type: clusterv1.AvailableCondition, Status: available}}
		}
		return c
	}
	for _, tc := range []struct {
		clusters []clusterv1.Cluster
		want     string
	}{
		{nil, "none"},
		{[]clusterv1.Cluster{cluster("team-a", "dev-1", "", "")}, "team-a/dev-1 Pending, not Available"},
		{[]clusterv1.Cluster{
			cluster("team-b", "dev-2", "Provisioning", metav1.ConditionFalse),
			cluster("team-a", "dev-1", "Provisioned", metav1.ConditionTrue),
		}, "team-a/dev-1 Provisioned, Available; team-b/dev-2 Provisioning, not Available"},
	} {
		if got := clusterStates(tc.clusters); got != tc.want {
			t.Errorf("clusterStates = %q, want %q", got, tc.want)
		}
	}
}

func TestClassesLine_CountsReadyAndNamesTheOthersWithWhy(t *testing.T) {
	class := func(name string, ready *metav1.Condition) clusterv1.ClusterClass {
		cc := clusterv1.ClusterClass{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name}}
		if ready != nil {
			ready.Type = clusterv1.ClusterClassVariablesReadyCondition
			cc.Status.Conditions = []metav1.Condition{*ready}
		}
		return cc
	}
	got := classesLine([]clusterv1.ClusterClass{
		class("in-memory", &metav1.Condition{Status: metav1.ConditionTrue}),
		class("hardened", &metav1.Condition{Status: metav1.ConditionFalse, Reason: "VariableDiscoveryFailed"}),
		class("new", nil),
	}, 7)
	want := "ClusterClasses: 1 of 3 with variables ready, 7 reconciles (not ready: team-a/hardened (VariableDiscoveryFailed), team-a/new (not reconciled yet))"
	if got != want {
		t.Errorf("classesLine = %q, want %q", got, want)
	}
}

func TestRequestsByHookAndCacheLine_ReadTheCoreManagersCounters(t *testing.T) {
	counter := func(value float64, labels ...string) *dto.Metric {
		m := &dto.Metric{Counter: &dto.Counter{Value: ptr.To(value)}}
		for i := 0; i < len(labels); i += 2 {
			m.Label = append(m.Label, &dto.LabelPair{Name: ptr.To(labels[i]), Value: ptr.To(labels[i+1])})
		}
		return m
	}
	m := managerprocess.Metrics{}
	if got := requestsByHook(m) + " · " + cacheLine(m); got != "none · response cache hits: 0" {
		t.Errorf("before any request: %q", got)
	}
	m[requestsMetric] = &dto.MetricFamily{Metric: []*dto.Metric{
		counter(30, "hook", "GeneratePatches", "host", "127.0.0.1:9445"),
		counter(10, "hook", "GeneratePatches", "host", "127.0.0.1:9443"),
		counter(3, "hook", "DiscoverVariables", "host", "127.0.0.1:9443"),
		counter(1, "hook", "BeforeClusterCreate", "host", "127.0.0.1:9445"),
	}}
	m[cacheLookupsMetric] = &dto.MetricFamily{Metric: []*dto.Metric{
		counter(12, "hook", "GeneratePatches", "result", "hit"),
		counter(4, "hook", "GeneratePatches", "result", "miss"),
	}}
	if got, want := requestsByHook(m), "BeforeClusterCreate 1, DiscoverVariables 3, GeneratePatches 40"; got != want {
		t.Errorf("requestsByHook = %q, want %q", got, want)
	}
	if got, want := cacheLine(m), "response cache hits: 12, misses: 4"; got != want {
		t.Errorf("cacheLine = %q, want %q", got, want)
	}
}

func TestPrintNextSteps_NamesAnExamplesObjectOnlyWhenItWasApplied(t *testing.T) {
	dir := t.TempDir()
	s := nextSteps{took: 61 * time.Second, logs: "/l", binDir: "/b", kubeconfig: "/k", metricsURL: "http://127.0.0.1:1/metrics", examplesDir: dir}
	var bare bytes.Buffer
	printNextSteps(&bare, s)
	for _, absent := range []string{"hardening", "who-uses", userfacing.ResponseCacheMaxAgeAnnotation} {
		if strings.Contains(bare.String(), absent) {
			t.Errorf("without the examples the steps name %s:\n%s", absent, bare.String())
		}
	}
	if !strings.HasPrefix(bare.String(), "Up in 1m1s.") || !strings.Contains(bare.String(), "curl -s http://127.0.0.1:1/metrics") {
		t.Errorf("steps lack the time or the metrics:\n%s", bare.String())
	}
}
