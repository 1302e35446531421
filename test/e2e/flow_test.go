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

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/proctest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capiflow"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// flowTimeout bounds one flow, waiting for the in-memory provider's port
// lock included: never a hang.
const flowTimeout = 25 * time.Minute

// The managers a flow runs under: the drop-in always, and Cluster API's own
// beside it when RSC_E2E_MANAGERS says so (make compare-flow).
const managersEnv = "RSC_E2E_MANAGERS"

type managerUnderTest struct{ name, binary string }

// dropInName is the drop-in's name in RSC_E2E_MANAGERS and reports.
const dropInName = "core-manager"

func managers(t *testing.T, binDir string) []managerUnderTest {
	t.Helper()
	dropIn := managerUnderTest{name: dropInName, binary: filepath.Join(binDir, "core-manager")}
	names := []string{dropIn.name}
	if env := os.Getenv(managersEnv); env != "" {
		names = strings.Split(env, ",")
	}
	var out []managerUnderTest
	for _, name := range names {
		switch strings.TrimSpace(name) {
		case dropIn.name:
			if _, err := os.Stat(dropIn.binary); err != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("CI=true: %s is missing: build it with `make core-manager`", dropIn.binary)
				}
				t.Skipf("%s is missing: build it with `make core-manager`", dropIn.binary)
			}
			out = append(out, dropIn)
		case capibaseline.Binary:
			out = append(out, managerUnderTest{name: capibaseline.Binary}) // empty binary: Cluster API's own
		default:
			t.Fatalf("%s=%q: want core-manager and/or capi-baseline", managersEnv, os.Getenv(managersEnv))
		}
	}
	return out
}

// Cluster API's own provisioning flow, with its test extension, CABPK, KCP
// and the in-memory provider, passes under the drop-in: the config is
// discovered, the class gets the extension's variables, creation waits for
// a blocking BeforeClusterCreate, the Cluster becomes Available with the
// extension's patches applied, an upgrade runs every upgrade hook, the
// control plane scales to 3 and the delete runs BeforeClusterDelete.
func TestFlow_ClusterAPIsProvisioningFlowPassesWithItsOwnProviders(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a management cluster and provisions a Cluster")
	}
	binDir := capimanagement.Require(t)
	results := map[string]*capiflow.Result{}
	for _, m := range managers(t, binDir) {
		if !t.Run(m.name, func(t *testing.T) { results[m.name] = runFlow(t, binDir, m, nil) }) {
			return
		}
		t.Logf("%s", results[m.name].Summary())
	}
	if baseline, ours := results[capibaseline.Binary], results[dropInName]; baseline != nil && ours != nil {
		compareFlows(t, baseline, ours)
	}
}

// beforeStep is called before the flow's upgrade, scale and delete steps
// with a cluster-admin of the management cluster.
type beforeStep func(ctx context.Context, c client.Client, step string)

// runFlow runs the flow under m, calling before, when set, before the
// upgrade, scale and delete steps.
func runFlow(t *testing.T, binDir string, m managerUnderTest, before beforeStep) *capiflow.Result {
	ctx, cancel := context.WithTimeout(context.Background(), flowTimeout)
	t.Cleanup(cancel)
	dir := t.TempDir()
	mgmt, err := capimanagement.Start(ctx, capimanagement.Options{BinDir: binDir, Dir: dir, CoreManager: m.binary})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgmt.Stop)
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, name := range capimanagement.ProcessNames {
			if data, err := os.ReadFile(mgmt.LogPath(name)); err == nil {
				t.Logf("%s log (last 40 lines):\n%s", name, proctest.Tail(string(data), 40))
			}
		}
	})
	o := capiflow.Options{Manager: m.name, Client: mgmt.Client, BinDir: binDir}
	if before != nil {
		o.Before = func(step string) { before(ctx, mgmt.Client, step) }
	}
	return capiflow.Run(ctx, t, mgmt, o)
}
