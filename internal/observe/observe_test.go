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

package observe_test

import (
	"context"
	"fmt"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"os"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/util/rand"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/observe"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/apiservertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
)

var env *apiservertest.Env

func TestMain(m *testing.M) { os.Exit(apiservertest.Run(m, &env)) }

func counter(name string, labels ...string) float64 {
	if name == "events" {
		return testutil.ToFloat64(metrics.ObservedEvents.WithLabelValues(labels...))
	}
	return testutil.ToFloat64(metrics.ObservedReconciles.WithLabelValues(labels...))
}

func TestReadOnly_AccountsBothMappingsAndWritesNothing(t *testing.T) {
	ctx := context.Background()
	name := "observed-" + rand.String(5)
	// What Cluster API's controller would have recorded, with the empty
	// namespaceSelector its defaulting webhook writes: its mapping reads a
	// nil one as admitting no namespace.
	ext := env.RecordedExtensionConfig(t, name, &metav1.LabelSelector{}, "vars")
	ns := env.Namespace(t, nil)
	for i, handler := range []string{"vars." + name, "vars." + name, "vars." + name, "vars.other"} {
		cc := apiservertest.ClusterClass(ns, fmt.Sprintf("cc-%d", i),
			apiservertest.ExternalPatch("p", clusterv1.ExternalPatchDefinition{DiscoverVariablesExtension: handler}))
		if err := env.Client.Create(ctx, cc); err != nil {
			t.Fatal(err)
		}
	}

	addsBefore := counter("events", "add")
	mgrCtx, cancel := context.WithCancel(ctx)
	mgr, err := observe.NewManager(mgrCtx, env.Config, observe.ManagerOptions{MetricsBindAddress: "0", HealthProbeBindAddress: "0"})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	managertest.Run(t, mgrCtx, cancel, mgr)

	// The initial add of the config: the scan maps it to its 3 referencers.
	polltest.Eventually(t, time.Minute, "initial add observed", func() (bool, string) {
		return counter("events", "add") > addsBefore, "no add yet"
	})
	scanBefore, indexBefore, updatesBefore := counter("reconciles", observe.MappingScan), counter("reconciles", observe.MappingIndex), counter("events", "update")
	enqueuesBefore := testutil.ToFloat64(metrics.ObservedScanEnqueues)

	// Annotation churn: Cluster API's scan enqueues the 3 referencers twice
	// (old and new object), which its queue folds into 3 reconciles; the
	// index none.
	ext.Annotations = map[string]string{"churn": "1"}
	if err := env.Client.Update(ctx, ext); err != nil {
		t.Fatal(err)
	}
	polltest.Eventually(t, time.Minute, "update observed", func() (bool, string) {
		return counter("events", "update") >= updatesBefore+1, "not yet"
	})
	if got := counter("reconciles", observe.MappingScan) - scanBefore; got != 3 {
		t.Errorf("scan mapping: %v reconciles for annotation churn, want 3", got)
	}
	if got := testutil.ToFloat64(metrics.ObservedScanEnqueues) - enqueuesBefore; got != 6 {
		t.Errorf("scan mapping: %v enqueues for annotation churn, want 6", got)
	}
	if got := counter("reconciles", observe.MappingIndex) - indexBefore; got != 0 {
		t.Errorf("index mapping: %v reconciles for annotation churn, want 0", got)
	}

	// A timeout change recorded by Cluster API: the index reconciles the 3.
	scanBefore, indexBefore, updatesBefore = counter("reconciles", observe.MappingScan), counter("reconciles", observe.MappingIndex), counter("events", "update")
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(ext), ext); err != nil {
		t.Fatal(err)
	}
	ext.Status.Handlers[0].TimeoutSeconds = 20
	if err := env.Client.Status().Update(ctx, ext); err != nil {
		t.Fatal(err)
	}
	polltest.Eventually(t, time.Minute, "status update observed", func() (bool, string) {
		return counter("events", "update") >= updatesBefore+1, "not yet"
	})
	if scan, index := counter("reconciles", observe.MappingScan)-scanBefore, counter("reconciles", observe.MappingIndex)-indexBefore; scan != 3 || index != 3 {
		t.Errorf("timeout change: scan %v, index %v; want 3 and 3", scan, index)
	}

	// Nothing was written: no condition of ours, no ClusterClass status.
	got := &runtimev1.ExtensionConfig{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(ext), got); err != nil {
		t.Fatal(err)
	}
	if len(got.Status.Conditions) != 0 || string(got.Spec.ClientConfig.CABundle) != "" {
		t.Errorf("read-only mode wrote the ExtensionConfig: %+v", got.Status.Conditions)
	}
	list := &clusterv1.ClusterClassList{}
	if err := env.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, cc := range list.Items {
		if len(cc.Status.Conditions) != 0 || len(cc.Status.Variables) != 0 {
			t.Errorf("read-only mode wrote ClusterClass %s status", cc.Name)
		}
	}
}
