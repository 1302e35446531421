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

package loadtest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/minimalclass"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/auditcount"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/localclustertest"
)

// testLab is a fresh control plane with Cluster API's CRDs and an audit
// log, on which a manager runs as the user "controller".
type testLab struct {
	binDir, kubeconfig, logDir string
	config                     *rest.Config
	audit                      *auditcount.Log
}

func startLab(t *testing.T) *testLab {
	t.Helper()
	binDir := capibaseline.Require(t)
	crds, err := capibaseline.CRDs(binDir)
	if err != nil {
		t.Fatal(err)
	}
	crds = append(append([]*apiextensionsv1.CustomResourceDefinition{}, crds...), minimalclass.TemplateCRDs()...)
	dir := t.TempDir()
	opts := localcluster.Options{Dir: dir, BinDir: binDir, CRDs: crds}
	auditLog, err := localclustertest.AuditLog(&opts)
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := localcluster.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cluster.Stop() })
	kubeconfig, _, err := localclustertest.User(cluster, "controller")
	if err != nil {
		t.Fatal(err)
	}
	return &testLab{binDir: binDir, kubeconfig: kubeconfig, logDir: filepath.Join(dir, "logs"), config: cluster.Config(), audit: auditcount.Open(auditLog)}
}

// options runs a scenario under c with the lab's audit log.
func (l *testLab) options(c Controller) Options {
	return Options{Config: l.config, Quiet: time.Second, Timeout: time.Minute, Controller: c, Audit: l.audit, ControllerUser: "controller"}
}

// The comparison's baseline works: Cluster API's own manager starts on a
// control plane with an audit log, reconciles the seed fixture, and every
// measured column has something in it.
func TestRun_ClusterAPIBaselineReportsEveryColumn(t *testing.T) {
	l := startLab(t)
	result, err := Run(context.Background(), SeedScenario(), l.options(CAPIProcess(l.binDir, l.kubeconfig, l.logDir)))
	if err != nil {
		t.Fatal(err)
	}
	if result.Controller != NameCAPI {
		t.Errorf("result names %q, want %q", result.Controller, NameCAPI)
	}
	var reconciles, calls, discoveries, requests, statusWrites int64
	converged := false
	for _, row := range result.Rows {
		if row.Requests == nil || row.StatusWrites == nil {
			t.Fatalf("%s: no audit counts", row.Event)
		}
		if row.ScanReconciles != 0 || row.ScanEnqueues != 0 {
			t.Errorf("%s: a simulated scan beside the real one", row.Event)
		}
		reconciles += int64(row.Reconciles)
		calls += row.Calls
		discoveries += row.DiscoveryCalls
		requests += int64(*row.Requests)
		statusWrites += int64(*row.StatusWrites)
		converged = converged || row.Convergence > 0
	}
	for column, v := range map[string]int64{"reconciles": reconciles, "DiscoverVariables calls": calls, "Discovery calls": discoveries,
		"apiserver requests": requests, "status writes": statusWrites} {
		if v == 0 {
			t.Errorf("no %s in any row", column)
		}
	}
	if !converged {
		t.Error("Cluster API converged on no event")
	}
}
