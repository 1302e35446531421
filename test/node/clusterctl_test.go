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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capiflow"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capinode"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/node"
)

// clusterctlInstall is one management cluster clusterctl init installed,
// with the configuration file it read.
type clusterctlInstall struct {
	t          *testing.T
	n          *node.Node
	binDir     string
	configPath string
	m          *capinode.Management
}

// clusterctlInit writes the configuration, runs clusterctl init for every
// component, and waits until every Pod is Ready and every webhook served.
// The cluster is emptied again with clusterctl delete when the test ends.
func clusterctlInit(ctx context.Context, t *testing.T, config capinode.ClusterctlConfig) (*clusterctlInstall, error) {
	n := inside(t)
	binDir, err := toolbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	requireNoClusterAPI(ctx, t, n)
	config.BinDir = binDir
	in := &clusterctlInstall{t: t, n: n, binDir: binDir, configPath: filepath.Join(t.TempDir(), "clusterctl.yaml")}
	in.writeConfig(config)
	removeWhenDone(t, n)
	began := time.Now()
	// cert-manager's CRDs and its stand-in first: clusterctl checks that
	// their API is served.
	m, err := capinode.Attach(ctx, capinode.Options{BinDir: binDir, Config: n.Config(), Progress: logWriter{t}}, func(*capinode.Management) error {
		out, err := in.clusterctl(ctx, capinode.InitArgs()...)
		t.Logf("clusterctl init took %.1fs:\n%s", time.Since(began).Seconds(), out)
		return err
	})
	in.m = m
	if m != nil {
		t.Cleanup(m.Close)
	}
	if err != nil {
		return in, err
	}
	t.Logf("clusterctl init and every Pod Ready, every webhook served: %.1fs", time.Since(began).Seconds())
	return in, nil
}

func (in *clusterctlInstall) writeConfig(config capinode.ClusterctlConfig) {
	in.t.Helper()
	config.BinDir = in.binDir
	if err := os.WriteFile(in.configPath, []byte(config.YAML()), 0o600); err != nil {
		in.t.Fatal(err)
	}
	in.t.Logf("%s:\n%s", in.configPath, config.YAML())
}

func (in *clusterctlInstall) clusterctl(ctx context.Context, args ...string) (string, error) {
	return capinode.Clusterctl(ctx, in.binDir, in.configPath, in.n.KubeconfigPath(), args...)
}

// removeWhenDone removes, when the test ends, what it installed and the
// flow's namespace and any other named, and waits until they are gone,
// so that the next install starts on an empty cluster. Not with clusterctl delete: with
// --all it stops after the first provider (it lists every provider's kinds
// with the API discovery it read when it started, and once the first
// provider's CRDs are gone the list fails: "the server could not find the
// requested resource", as in Cluster API's issue 2483), and one provider
// per run took 100 s each here, most of the test's time.
func removeWhenDone(t *testing.T, n *node.Node, namespaces ...string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		if err := capinode.Remove(ctx, adminClient(t, n), append([]string{capiflow.Namespace}, namespaces...)...); err != nil {
			t.Errorf("remove what the test installed: %v", err)
		}
	})
}

// requireNoClusterAPI fails the test when an earlier install left
// anything: a namespace of Cluster API's components or the flow's, or one
// of their cluster-scoped objects.
func requireNoClusterAPI(ctx context.Context, t *testing.T, n *node.Node) {
	t.Helper()
	left, err := capinode.Leftovers(ctx, adminClient(t, n), capiflow.Namespace)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Fatalf("the node still has, from an earlier test: %s", strings.Join(left, ", "))
	}
}

// switchCore rewrites the configuration and re-applies the core provider
// at the same version with clusterctl upgrade apply, the way clusterctl
// gives to change what a provider runs, and waits until the core runs
// want.
func (in *clusterctlInstall) switchCore(ctx context.Context, config capinode.ClusterctlConfig, want string) {
	in.t.Helper()
	in.writeConfig(config)
	began := time.Now()
	out, err := in.clusterctl(ctx, capinode.UpgradeCoreArgs()...)
	if err != nil {
		in.t.Fatal(err)
	}
	in.t.Logf("clusterctl upgrade apply in %.1fs:\n%s", time.Since(began).Seconds(), out)
	if err := in.m.WaitServed(ctx, capinode.Core); err != nil {
		in.t.Fatal(err)
	}
	image, err := in.m.CoreImage(ctx)
	if err != nil {
		in.t.Fatal(err)
	}
	if image != want {
		in.t.Fatalf("after clusterctl upgrade apply the core runs %s, want %s", image, want)
	}
	in.t.Logf("the core runs %s, rolled out and its webhook served %.1fs after the upgrade began", image, time.Since(began).Seconds())
}

// describeAndPlan runs clusterctl describe cluster on the flow's Cluster
// and clusterctl upgrade plan, and checks what they show.
func (in *clusterctlInstall) describeAndPlan(ctx context.Context) {
	in.t.Helper()
	out, err := in.clusterctl(ctx, "describe", "cluster", capiflow.ClusterName, "--namespace", capiflow.Namespace)
	if err != nil {
		in.t.Error(err)
	} else if cluster := "Cluster " + capiflow.Namespace + "/" + capiflow.ClusterName; !strings.Contains(out, cluster) || !strings.Contains(out, "KubeadmControlPlane "+capiflow.Namespace+"/") {
		in.t.Errorf("clusterctl describe cluster shows no %s with its KubeadmControlPlane:\n%s", cluster, out)
	} else {
		in.t.Logf("clusterctl describe cluster %s:\n%s", capiflow.ClusterName, out)
	}
	out, err = in.clusterctl(ctx, "upgrade", "plan")
	if err != nil {
		in.t.Error(err)
	} else if !strings.Contains(out, capinode.Core.Namespace) || !strings.Contains(out, capinode.ReleaseVersion) {
		in.t.Errorf("clusterctl upgrade plan names no core provider at %s in %s:\n%s", capinode.ReleaseVersion, capinode.Core.Namespace, out)
	} else {
		in.t.Logf("clusterctl upgrade plan:\n%s", out)
	}
}

// flow runs Cluster API's flow on the install, with clusterctl describe
// cluster and clusterctl upgrade plan before the scale, ahead of what
// before does then, and before the delete, after it: each install path
// switches its core back at one of those steps, so they run once under
// the drop-in and once under Cluster API's own manager.
func (in *clusterctlInstall) flow(ctx context.Context, manager string, before func(step string)) {
	in.t.Helper()
	runFlow(ctx, in.t, in.m, in.binDir, manager, func(step string) {
		if step == "scale" {
			in.describeAndPlan(ctx)
		}
		before(step)
		if step == "delete" {
			in.describeAndPlan(ctx)
		}
	})
}

// runFlow runs Cluster API's flow on an installed management cluster,
// calling before at each step after the first, and checks the managers'
// logs for requests their RBAC refused.
func runFlow(ctx context.Context, t *testing.T, m *capinode.Management, binDir, manager string, before func(step string)) {
	t.Helper()
	result := capiflow.Run(ctx, t, m, capiflow.Options{
		Manager: manager, Client: m.Client(), BinDir: binDir,
		Before: func(step string) {
			checkForbidden(ctx, t, m, "before "+step)
			before(step)
		},
	})
	checkForbidden(ctx, t, m, "at the end")
	t.Log(result.Summary())
}

// An images: override naming an image the node does not hold fails the
// install with the Pod's image error, named, long before any timeout.
func TestInside_ClusterctlInitWithAnImageTheNodeLacksFailsWithThePodsImageError(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	missing := *capinode.DropInOverride
	missing.Tag = "not-on-the-node"
	began := time.Now()
	_, err := clusterctlInit(ctx, t, capinode.ClusterctlConfig{Core: &missing})
	if err == nil {
		t.Fatal("the install succeeded with an image the node does not hold")
	}
	want := capinode.NodeRepository + "/core-manager:not-on-the-node"
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "Image") {
		t.Fatalf("the install failed with %v, want the Pod's image error naming %s", err, want)
	}
	if took := time.Since(began); took > 3*time.Minute {
		t.Errorf("the image error took %s to surface", took)
	}
	t.Logf("failed as it should, in %.1fs: %v", time.Since(began).Seconds(), err)
}

// clusterctl init with Cluster API's own release of every provider and an
// images: override of the core provider installs the drop-in; Cluster
// API's flow passes; before the control plane scales, the override is
// removed and clusterctl upgrade apply puts Cluster API's own manager
// back, on the live cluster, and the flow goes on to the end.
func TestInside_ClusterctlInitWithAnImagesOverrideAndBackMidFlow(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	in, err := clusterctlInit(ctx, t, capinode.ClusterctlConfig{Core: capinode.DropInOverride})
	if err != nil {
		t.Fatal(err)
	}
	requireCoreImage(ctx, t, in.m, capinode.DropInImage)
	in.flow(ctx, "the drop-in by clusterctl's images: override", func(step string) {
		if step == "scale" {
			in.switchCore(ctx, capinode.ClusterctlConfig{}, capinode.ClusterAPICoreImage)
		}
	})
}

// clusterctl init with our own release of the core provider named in
// providers: installs the drop-in with no override; Cluster API's flow
// passes; before the delete, providers: names Cluster API's release again
// and clusterctl upgrade apply puts its own manager back.
func TestInside_ClusterctlInitWithOurOwnCoreRelease(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	in, err := clusterctlInit(ctx, t, capinode.ClusterctlConfig{DropInRelease: true})
	if err != nil {
		t.Fatal(err)
	}
	requireCoreImage(ctx, t, in.m, capinode.DropInImage)
	in.flow(ctx, "the drop-in by our own core release", func(step string) {
		if step == "delete" {
			in.switchCore(ctx, capinode.ClusterctlConfig{}, capinode.ClusterAPICoreImage)
		}
	})
}

// adminClient is a cluster-admin client of the node's cluster.
func adminClient(t *testing.T, n *node.Node) client.Client {
	t.Helper()
	c, err := client.New(n.Config(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func requireCoreImage(ctx context.Context, t *testing.T, m *capinode.Management, want string) {
	t.Helper()
	image, err := m.CoreImage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if image != want {
		t.Fatalf("the core runs %s, want %s", image, want)
	}
}
