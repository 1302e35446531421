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

package coremanager

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/capiversion"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/minimalclass"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/proctest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
)

// The kinds a ClusterClass with one worker class references, and the kinds
// Cluster API's topology controller creates from them: CRDs carrying the
// v1beta2 contract label, as providers ship them.
var (
	infraClusterTemplate = minimalclass.InfrastructureCluster
	controlPlaneTemplate = minimalclass.ControlPlane
	infraMachineTemplate = minimalclass.TemplateKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "GenericInfrastructureMachineTemplate", Versions: []string{"v1beta2"}, Contract: "v1beta2"}
	bootstrapTemplate    = minimalclass.TemplateKind{Group: "bootstrap.cluster.x-k8s.io", Kind: "GenericBootstrapConfigTemplate", Versions: []string{"v1beta2"}, Contract: "v1beta2"}
	infraCluster         = minimalclass.TemplateKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "GenericInfrastructureCluster", Versions: []string{"v1beta2"}, Contract: "v1beta2"}
	controlPlane         = minimalclass.TemplateKind{Group: "controlplane.cluster.x-k8s.io", Kind: "GenericControlPlane", Versions: []string{"v1beta2"}, Contract: "v1beta2"}
	infraMachine         = minimalclass.TemplateKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "GenericInfrastructureMachine", Versions: []string{"v1beta2"}, Contract: "v1beta2"}
	bootstrapConfig      = minimalclass.TemplateKind{Group: "bootstrap.cluster.x-k8s.io", Kind: "GenericBootstrapConfig", Versions: []string{"v1beta2"}, Contract: "v1beta2"}
)

// The extension's handlers, and what they answer.
const (
	generatePatches     = "generate-patches"
	validateTopology    = "validate-topology"
	beforeClusterCreate = "before-cluster-create"
	// region is what the external patch writes into the infrastructure
	// cluster's template.
	region = "patched-by-extension"
	// blockingCalls is how many BeforeClusterCreate calls ask for a retry
	// before one lets creation go ahead.
	blockingCalls = 2
)

func hookHandler(name string, hook string) runtimehooksv1.ExtensionHandler {
	return runtimehooksv1.ExtensionHandler{
		Name:           name,
		RequestHook:    runtimehooksv1.GroupVersionHook{APIVersion: runtimehooksv1.GroupVersion.String(), Hook: hook},
		TimeoutSeconds: ptr.To[int32](10),
		FailurePolicy:  ptr.To(runtimehooksv1.FailurePolicyFail),
	}
}

// A Cluster with a managed topology is reconciled by Cluster API's own
// topology controller, running in the drop-in manager, through our runtime
// client and registry: BeforeClusterCreate blocks creation while it asks
// for retries, then the objects are created from the templates with the
// extension's patch applied, and TopologyReconciled is True.
func TestDropIn_ClusterAPIsTopologyControllerCallsExtensionsThroughOurRegistry(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane and the drop-in manager")
	}
	binDir := capibaseline.Require(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dir := t.TempDir()

	cluster, c := startTopologyControlPlane(ctx, t, binDir, dir)

	ext := sampleextension.New(sampleextension.Options{Handlers: []runtimehooksv1.ExtensionHandler{
		hookHandler(generatePatches, "GeneratePatches"),
		hookHandler(validateTopology, "ValidateTopology"),
		hookHandler(beforeClusterCreate, "BeforeClusterCreate"),
	}})
	ext.SetPatches(generatePatches, []sampleextension.Patch{{
		Kind:      infraClusterTemplate.Kind,
		JSONPatch: json.RawMessage(fmt.Sprintf(`[{"op":"add","path":"/spec/template/spec/region","value":%q}]`, region)),
	}})
	ext.SetRetry("BeforeClusterCreate/"+beforeClusterCreate, sampleextension.Retry{Calls: blockingCalls, AfterSeconds: 2})
	url, ca, stopExtension, err := sampleextension.StartTLS(ext)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stopExtension)

	logPath := filepath.Join(dir, "core-manager.log")
	starting := time.Now()
	mgr, err := capibaseline.Start(ctx, capibaseline.Options{
		BinDir: binDir, Binary: coreManager, Kubeconfig: cluster.KubeconfigPath(), LogPath: logPath,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Stop)
	t.Logf("the drop-in answered /readyz %s after it was started", time.Since(starting).Round(time.Millisecond))
	t.Cleanup(func() {
		if t.Failed() {
			if data, err := os.ReadFile(logPath); err == nil {
				t.Logf("core-manager log (last 60 lines):\n%s", proctest.Tail(string(data), 60))
			}
		}
	})

	// The manager lists what runs in it, and whose each part is.
	startLog, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, line := range strings.Split(string(startLog), "\n") {
		if i := strings.Index(line, `"Running `); i >= 0 {
			parts = append(parts, line[i:])
		}
	}
	t.Logf("parts:\n%s", strings.Join(parts, "\n"))
	for _, want := range []string{
		`"Running reconciler ExtensionConfig" logger="setup" owner="ours"`,
		`"Running reconciler ClusterClass" logger="setup" owner="ours"`,
		`"Running runnable runtime client and handler registry, with warm-up" logger="setup" owner="ours"`,
		`"Running reconciler ClusterTopology" logger="setup" owner="Cluster API ` + capiversion.Version + `"`,
		`"Running webhook Cluster" logger="setup" owner="Cluster API ` + capiversion.Version + `"`,
	} {
		if !strings.Contains(strings.Join(parts, "\n"), want) {
			t.Errorf("the start-up log lacks %s", want)
		}
	}

	const ns = "default"
	objects := []client.Object{
		&runtimev1.ExtensionConfig{
			ObjectMeta: metav1.ObjectMeta{Name: "sample"},
			Spec: runtimev1.ExtensionConfigSpec{
				ClientConfig: runtimev1.ClientConfig{URL: url, CABundle: ca},
				// What Cluster API's defaulting webhook sets: every namespace.
				NamespaceSelector: &metav1.LabelSelector{},
			},
		},
		topologyClass(ns, "patched", clusterv1.ClusterClassPatch{
			Name: "from-extension",
			External: &clusterv1.ExternalPatchDefinition{
				GeneratePatchesExtension:  generatePatches + ".sample",
				ValidateTopologyExtension: validateTopology + ".sample",
			},
		}),
	}
	objects = append(objects, topologyTemplates(ns)...)
	for _, obj := range objects {
		if err := c.Create(ctx, obj); err != nil {
			t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
		}
	}
	polltest.Eventually(t, 60*time.Second, "our ClusterClass controller reconciled the class", func() (bool, string) {
		cc := &clusterv1.ClusterClass{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "patched"}, cc); err != nil {
			return false, err.Error()
		}
		return cc.Status.ObservedGeneration == cc.Generation && meta.IsStatusConditionTrue(cc.Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition),
			fmt.Sprintf("observedGeneration %d of %d, conditions %v", cc.Status.ObservedGeneration, cc.Generation, cc.Status.Conditions)
	})

	// No webhook is registered with this control plane: the Cluster sets
	// what Cluster API's defaulting webhook would.
	topologyCluster := clusterOf(ns, "managed", "patched")
	if err := c.Create(ctx, topologyCluster); err != nil {
		t.Fatal(err)
	}

	// While BeforeClusterCreate asks for retries nothing is created. A list
	// made between two reads of the count that both show at most the
	// blocking calls ran before the call that lets creation go ahead.
	beforeCreateCalls := func() int64 { return ext.Calls()["BeforeClusterCreate/"+beforeClusterCreate] }
	sawBlocked := 0
	polltest.Eventually(t, 60*time.Second, "BeforeClusterCreate answered with a retry, then let creation go ahead", func() (bool, string) {
		before := beforeCreateCalls()
		infra := listOf(ctx, t, c, infraCluster, ns)
		after := beforeCreateCalls()
		if after >= 1 && after <= blockingCalls {
			if len(infra) != 0 {
				t.Fatalf("%d infrastructure clusters exist while BeforeClusterCreate blocks (calls %d..%d)", len(infra), before, after)
			}
			sawBlocked++
		}
		return after > blockingCalls, fmt.Sprintf("%d BeforeClusterCreate calls", after)
	})
	if sawBlocked == 0 {
		t.Error("never observed creation while BeforeClusterCreate was blocking: the check above proved nothing")
	}

	polltest.Eventually(t, 90*time.Second, "the topology is created with the patch applied and TopologyReconciled is True", func() (bool, string) {
		got := &clusterv1.Cluster{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(topologyCluster), got); err != nil {
			return false, err.Error()
		}
		infra := listOf(ctx, t, c, infraCluster, ns)
		if len(infra) != 1 {
			return false, fmt.Sprintf("%d infrastructure clusters", len(infra))
		}
		if r, _, _ := unstructured.NestedString(infra[0].Object, "spec", "region"); r != region {
			return false, fmt.Sprintf("infrastructure cluster spec.region %q, want %q", r, region)
		}
		if n := len(listOf(ctx, t, c, controlPlane, ns)); n != 1 {
			return false, fmt.Sprintf("%d control planes", n)
		}
		mds := &clusterv1.MachineDeploymentList{}
		if err := c.List(ctx, mds, client.InNamespace(ns)); err != nil || len(mds.Items) != 1 {
			return false, fmt.Sprintf("%d MachineDeployments (%v)", len(mds.Items), err)
		}
		cond := meta.FindStatusCondition(got.Status.Conditions, clusterv1.ClusterTopologyReconciledCondition)
		if cond == nil || cond.Status != metav1.ConditionTrue {
			return false, fmt.Sprintf("TopologyReconciled %v", cond)
		}
		return true, ""
	})

	logTree(ctx, t, c, ns)
	calls := ext.Calls()
	t.Logf("extension calls: %v", calls)
	for _, key := range []string{"Discovery", "GeneratePatches/" + generatePatches, "ValidateTopology/" + validateTopology} {
		if calls[key] == 0 {
			t.Errorf("%s was never called", key)
		}
	}
	// A reconcile that fails after the hook let creation go ahead, before
	// the Cluster records its objects, calls it again: at least one call
	// after the retries.
	if n := calls["BeforeClusterCreate/"+beforeClusterCreate]; n < blockingCalls+1 {
		t.Errorf("BeforeClusterCreate was called %d times, want %d retries and a success", n, blockingCalls)
	}
	// Cluster API's request metrics count the calls the extension served.
	// The topology controller may still be calling: the two agree once
	// no call is in flight.
	polltest.Eventually(t, 30*time.Second, "capi_runtime_sdk_requests_total counts what the extension served", func() (bool, string) {
		metrics, err := mgr.Scrape(ctx)
		if err != nil {
			return false, err.Error()
		}
		served := ext.Calls()
		for hook, key := range map[string]string{
			"BeforeClusterCreate": "BeforeClusterCreate/" + beforeClusterCreate,
			"GeneratePatches":     "GeneratePatches/" + generatePatches,
			"ValidateTopology":    "ValidateTopology/" + validateTopology,
			"Discovery":           "Discovery",
		} {
			got := metrics.Sum("capi_runtime_sdk_requests_total", map[string]string{"hook": hook, "code": "200", "status": "Success"})
			if got != float64(served[key]) {
				return false, fmt.Sprintf("%s: %v counted, %d served", hook, got, served[key])
			}
		}
		return true, ""
	})
}

// logTree logs the objects in namespace and their owners, for the record.
func logTree(ctx context.Context, t *testing.T, c client.Client, namespace string) {
	t.Helper()
	var lines []string
	kinds := []minimalclass.TemplateKind{infraCluster, controlPlane, infraMachineTemplate, bootstrapTemplate, infraMachine, bootstrapConfig}
	core := []minimalclass.TemplateKind{
		{Group: "cluster.x-k8s.io", Kind: "MachineDeployment", Versions: []string{"v1beta2"}},
		{Group: "cluster.x-k8s.io", Kind: "MachineSet", Versions: []string{"v1beta2"}},
		{Group: "cluster.x-k8s.io", Kind: "Machine", Versions: []string{"v1beta2"}},
	}
	for _, k := range append(kinds, core...) {
		for _, o := range listOf(ctx, t, c, k, namespace) {
			var owners []string
			for _, ref := range o.GetOwnerReferences() {
				owners = append(owners, ref.Kind+"/"+ref.Name)
			}
			lines = append(lines, fmt.Sprintf("%s/%s owned by %v", k.Kind, o.GetName(), owners))
		}
	}
	t.Logf("objects in %s:\n%s", namespace, strings.Join(lines, "\n"))
}

// listOf lists the objects of kind k in namespace.
func listOf(ctx context.Context, t *testing.T, c client.Client, k minimalclass.TemplateKind, namespace string) []unstructured.Unstructured {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(k.Group + "/" + k.Version())
	list.SetKind(k.Kind + "List")
	if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
		t.Fatalf("list %s: %v", k.Kind, err)
	}
	return list.Items
}

// startTopologyControlPlane starts a control plane with Cluster API's CRDs
// and those of the kinds a minimal ClusterClass references and its
// topology creates, and returns a cluster-admin client of it.
func startTopologyControlPlane(ctx context.Context, t *testing.T, binDir, dir string) (*localcluster.Cluster, client.Client) {
	t.Helper()
	crds, err := capibaseline.CRDs(binDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []minimalclass.TemplateKind{infraClusterTemplate, controlPlaneTemplate, infraMachineTemplate, bootstrapTemplate, infraCluster, controlPlane, infraMachine, bootstrapConfig} {
		crds = append(crds, minimalclass.CRD(k))
	}
	cluster, err := localcluster.Start(ctx, localcluster.Options{Dir: filepath.Join(dir, "cluster"), BinDir: binDir, CRDs: crds})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cluster.Stop() })
	c, err := client.New(cluster.Config(), client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	return cluster, c
}

// topologyTemplates are the templates topologyClass references.
func topologyTemplates(namespace string) []client.Object {
	return []client.Object{
		minimalclass.Template(namespace, infraClusterTemplate, "infra"),
		minimalclass.Template(namespace, controlPlaneTemplate, "control-plane"),
		minimalclass.Template(namespace, infraMachineTemplate, "worker-machine"),
		minimalclass.Template(namespace, bootstrapTemplate, "worker-bootstrap"),
	}
}

// topologyClass is a ClusterClass of topologyTemplates with one worker
// class and the given patches.
func topologyClass(namespace, name string, patches ...clusterv1.ClusterClassPatch) *clusterv1.ClusterClass {
	return &clusterv1.ClusterClass{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: clusterv1.ClusterClassSpec{
			Infrastructure: clusterv1.InfrastructureClass{TemplateRef: infraClusterTemplate.Ref("v1beta2", "infra")},
			ControlPlane:   clusterv1.ControlPlaneClass{TemplateRef: controlPlaneTemplate.Ref("v1beta2", "control-plane")},
			Workers: clusterv1.WorkersClass{MachineDeployments: []clusterv1.MachineDeploymentClass{{
				Class:          "worker",
				Infrastructure: clusterv1.MachineDeploymentClassInfrastructureTemplate{TemplateRef: infraMachineTemplate.Ref("v1beta2", "worker-machine")},
				Bootstrap:      clusterv1.MachineDeploymentClassBootstrapTemplate{TemplateRef: bootstrapTemplate.Ref("v1beta2", "worker-bootstrap")},
			}}},
			Patches: patches,
		},
	}
}

// clusterOf is a Cluster of class with one control plane Machine and one
// worker. No webhook is registered with these control planes: it sets what
// Cluster API's defaulting webhook would.
func clusterOf(namespace, name, class string) *clusterv1.Cluster {
	return &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: clusterv1.ClusterSpec{Topology: clusterv1.Topology{
			ClassRef:     clusterv1.ClusterClassRef{Name: class, Namespace: namespace},
			Version:      "v1.33.0",
			ControlPlane: clusterv1.ControlPlaneTopology{Replicas: ptr.To[int32](1)},
			Workers: clusterv1.WorkersTopology{MachineDeployments: []clusterv1.MachineDeploymentTopology{{
				Class: "worker", Name: "md-0", Replicas: ptr.To[int32](1),
			}}},
		}},
	}
}
