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

package node_test

import (
	"context"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capiflow"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capinode"
)

// The Cluster API Operator, built from its released module and run as a
// Pod from its release's rendering, installs every provider from Cluster
// API's release in our repository (a ConfigMap each), the CoreProvider's
// deployment.containers setting the manager's imageUrl to the drop-in's;
// Cluster API's flow passes, and before its delete the imageUrl is set to
// Cluster API's own image on the live cluster. Everything is removed when
// the test ends.
func TestInside_ClusterAPIOperatorInstallsTheDropIn(t *testing.T) {
	n := inside(t)
	binDir, err := toolbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	requireNoClusterAPI(ctx, t, n)
	began := time.Now()
	m, err := capinode.Attach(ctx, capinode.Options{BinDir: binDir, Config: n.Config(), Progress: logWriter{t}}, func(m *capinode.Management) error {
		if err := m.InstallOperator(ctx, binDir); err != nil {
			return err
		}
		t.Logf("the operator (%s) rolled out and its webhooks served in %.1fs", capinode.Operator.Image, time.Since(began).Seconds())
		if err := m.OperatorProviders(ctx, binDir, capinode.DropInImage, nil); err != nil {
			return err
		}
		// The providers' conditions first: when the operator cannot
		// install one, they say why, where the wait for its Deployment
		// would only say "not found".
		return m.WaitOperatorProvidersReady(ctx)
	})
	removeWhenDone(t, n)
	if m != nil {
		t.Cleanup(m.Close)
		// Before the rest is removed (clean-ups run last registered
		// first): the flow's namespace while Cluster API's controllers
		// still run to remove its objects' finalizers, then the providers,
		// whose finalizers need the operator running.
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			if err := capinode.DeleteNamespaces(ctx, adminClient(t, n), capiflow.Namespace); err != nil {
				t.Errorf("delete the flow's namespace: %v", err)
			}
			if err := m.DeleteOperatorProviders(ctx); err != nil {
				t.Errorf("delete the operator's providers: %v", err)
			}
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the operator and every provider it installed Ready, every webhook served: %.1fs", time.Since(began).Seconds())
	requireCoreImage(ctx, t, m, capinode.DropInImage)
	runFlow(ctx, t, m, binDir, "the drop-in by the Cluster API Operator", func(step string) {
		if step != "delete" {
			return
		}
		switched := time.Now()
		if err := m.SetOperatorCoreImage(ctx, capinode.ClusterAPICoreImage); err != nil {
			t.Fatal(err)
		}
		t.Logf("the CoreProvider's imageUrl set back to Cluster API's own (%s): rolled out and its webhook served in %.1fs", capinode.ClusterAPICoreImage, time.Since(switched).Seconds())
	})
}
