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
	"net"
	"net/url"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capiflow"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// Once the Cluster is Available, the test extension's ExtensionConfig
// gets a wrong port, and stays so: the upgrade, the scale and the delete
// still pass with every hook, as under Cluster API's own manager, since
// calls keep the clientConfig the last successful Discovery used. Only
// Discovered=False shows the typo.
func TestFlow_AWrongPortInTheExtensionConfigBreaksNoHook(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a management cluster and provisions a Cluster")
	}
	binDir := capimanagement.Require(t)
	for _, m := range managers(t, binDir) {
		if !t.Run(m.name, func(t *testing.T) { runFlowWithAWrongPort(t, binDir, m) }) {
			return
		}
	}
}

func runFlowWithAWrongPort(t *testing.T, binDir string, m managerUnderTest) {
	var mgmt client.Client
	typo := func(ctx context.Context, c client.Client, step string) {
		mgmt = c
		if step != "upgrade" {
			return
		}
		ext := &runtimev1.ExtensionConfig{}
		if err := c.Get(ctx, client.ObjectKey{Name: capiflow.ExtensionConfigName}, ext); err != nil {
			t.Fatal(err)
		}
		if ext.Spec.ClientConfig.URL == "" {
			t.Fatalf("the test extension's config has no URL to put a wrong port in: %+v", ext.Spec.ClientConfig)
		}
		target, err := url.Parse(ext.Spec.ClientConfig.URL)
		if err != nil {
			t.Fatal(err)
		}
		port, err := localcluster.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		base := ext.DeepCopy()
		target.Host = net.JoinHostPort(target.Hostname(), strconv.Itoa(port))
		ext.Spec.ClientConfig.URL = target.String()
		if err := c.Patch(ctx, ext, client.MergeFrom(base)); err != nil {
			t.Fatal(err)
		}
		t.Logf("the ExtensionConfig now calls %s, where nothing listens", ext.Spec.ClientConfig.URL)
	}
	result := runFlow(t, binDir, m, typo)
	t.Logf("%s", result.Summary())

	if mgmt == nil {
		t.Fatal("the flow never reached the upgrade")
	}
	ext := &runtimev1.ExtensionConfig{}
	if err := mgmt.Get(context.Background(), client.ObjectKey{Name: capiflow.ExtensionConfigName}, ext); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(ext.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition); c == nil || c.Status != "False" || c.ObservedGeneration != ext.Generation {
		t.Errorf("after the flow, Discovered = %+v at generation %d, want False for the wrong port", c, ext.Generation)
	}
}
