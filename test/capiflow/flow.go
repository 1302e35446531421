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

package capiflow

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// The flow's objects. The ClusterClass's external patch and upgrade plan
// name the test extension's handlers through EXTENSION_CONFIG_NAME.
const (
	Namespace           = "e2e-flow"
	ClusterName         = "flow"
	ExtensionConfigName = "test-extension"
	// PatchName is the ClusterClass's external patch.
	PatchName = "test-patch"
	// blockingResponse makes the test extension ask for a retry.
	blockingResponse = `{"Status": "Success", "RetryAfterSeconds": 5}`
	unblocked        = `{"Status": "Success"}`
)

// Deadlines for each step, sized for two loaded cores (one Cluster took
// about 70 s to become Available and 110 s to upgrade, unloaded).
const (
	settleTimeout = 3 * time.Minute
	stepTimeout   = 8 * time.Minute
	// WorkerMachines is the Cluster's number of workers.
	WorkerMachines = 2
)

// flow drives one run; every wait fails at once when a process exits.
type flow struct {
	t       testing.TB
	ctx     context.Context
	mgmt    Management
	c       client.Client
	binDir  string
	vars    map[string]string
	created time.Time
	result  *Result
	before  func(step string)
}

// Management is what the flow drives: a management cluster with Cluster
// API's CABPK, KCP, in-memory provider and test extension, and a core
// manager, as processes (package capimanagement) or as Pods (the real
// node).
type Management interface {
	// Exited says which part of the management cluster ended, if one did:
	// every wait fails at once on it.
	Exited() error
	// TestExtensionConfig is an ExtensionConfig that registers Cluster
	// API's test extension for the namespaces named.
	TestExtensionConfig(name string, namespaces ...string) *runtimev1.ExtensionConfig
	// Scrape reads the metrics of capimanagement.TestExtensionName or
	// capimanagement.CoreManagerName.
	Scrape(ctx context.Context, name string) (managerprocess.Metrics, error)
}

// Options say where the flow runs.
type Options struct {
	// Manager names the core manager under test in the result.
	Manager string
	// Client is a cluster-admin of the management cluster.
	Client client.Client
	// BinDir holds what make capi-providers renders (the e2e templates).
	BinDir string
	// Before, when set, is called before the upgrade, scale and delete
	// steps, with the step's name: a test kills a leader or swaps an image
	// there.
	Before func(step string)
}

// Run runs Cluster API's provisioning flow: the test extension's config
// is discovered, the class gets the extension's variables, creation waits
// for a blocking BeforeClusterCreate, the Cluster becomes Available with
// the extension's patches applied, an upgrade runs every upgrade hook, the
// control plane scales to 3 and the delete runs BeforeClusterDelete. It
// fails t at the first step that does not happen in time.
func Run(ctx context.Context, t testing.TB, m Management, o Options) *Result {
	t.Helper()
	vars, err := capimanagement.E2EVariables(o.BinDir)
	if err != nil {
		t.Fatal(err)
	}
	for name, value := range map[string]string{
		"CLUSTER_NAME":                ClusterName,
		"NAMESPACE":                   Namespace,
		"KUBERNETES_VERSION":          vars["KUBERNETES_VERSION_UPGRADE_FROM"],
		"CONTROL_PLANE_MACHINE_COUNT": "1",
		"WORKER_MACHINE_COUNT":        strconv.Itoa(WorkerMachines),
		// The class's handlers name this ExtensionConfig through it; the
		// template's own default, "scale", would be kept with its quotes.
		"EXTENSION_CONFIG_NAME": ExtensionConfigName,
	} {
		vars[name] = value
	}
	before := o.Before
	if before == nil {
		before = func(string) {}
	}
	f := &flow{t: t, ctx: ctx, mgmt: m, c: o.Client, binDir: o.BinDir, vars: vars, before: before,
		result: &Result{Manager: o.Manager, Steps: map[string]time.Duration{}}}

	f.registerExtension()
	f.createClusterClass()
	f.createClusterBlockedByBeforeClusterCreate()
	f.waitAvailable("create")
	f.checkPatchesApplied()
	f.waitHooks("create", capimanagement.HookKey("BeforeClusterCreate"), capimanagement.HookKey("AfterControlPlaneInitialized"))
	f.before("upgrade")
	f.upgrade()
	f.before("scale")
	f.scaleControlPlane(3)
	f.snapshotStatus()
	f.before("delete")
	f.delete()
	f.collectCounts()
	return f.result
}

// eventually polls check until it passes, a process of the management
// cluster exits, or the deadline.
func (f *flow) eventually(timeout time.Duration, what string, check func() (bool, string)) {
	f.t.Helper()
	polltest.Eventually(f.t, timeout, what, func() (bool, string) {
		if err := f.mgmt.Exited(); err != nil {
			f.t.Fatalf("%s: %v", what, err)
		}
		return check()
	})
}

func (f *flow) step(name string) {
	f.result.Steps[name] = time.Since(f.created).Round(time.Second)
	f.t.Logf("%s: %s after the Cluster was created", name, f.result.Steps[name])
}

func (f *flow) registerExtension() {
	f.t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}
	if err := f.c.Create(f.ctx, ns); err != nil {
		f.t.Fatal(err)
	}
	if err := f.c.Create(f.ctx, f.mgmt.TestExtensionConfig(ExtensionConfigName, Namespace)); err != nil {
		f.t.Fatal(err)
	}
	f.eventually(settleTimeout, "the test extension's ExtensionConfig is Discovered", func() (bool, string) {
		ext := &runtimev1.ExtensionConfig{}
		if err := f.c.Get(f.ctx, client.ObjectKey{Name: ExtensionConfigName}, ext); err != nil {
			return false, err.Error()
		}
		if !meta.IsStatusConditionTrue(ext.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition) {
			return false, fmt.Sprintf("conditions %+v", ext.Status.Conditions)
		}
		for _, want := range []string{"discover-variables", "generate-patches", "validate-topology", "before-cluster-create", "generate-upgrade-plan"} {
			if !hasHandler(ext, want+"."+ExtensionConfigName) {
				return false, fmt.Sprintf("no handler %s.%s in %+v", want, ExtensionConfigName, ext.Status.Handlers)
			}
		}
		return true, ""
	})
}

func hasHandler(ext *runtimev1.ExtensionConfig, name string) bool {
	for _, h := range ext.Status.Handlers {
		if h.Name == name {
			return true
		}
	}
	return false
}

// createClusterClass applies Cluster API's in-memory ClusterClass and its
// templates, and waits for the test extension's variables in its status.
func (f *flow) createClusterClass() {
	f.t.Helper()
	objects, err := capimanagement.Render(f.ctx, f.binDir, capimanagement.ClusterClassTemplate, f.vars)
	if err != nil {
		f.t.Fatal(err)
	}
	f.create(objects)
	f.eventually(settleTimeout, "the ClusterClass is VariablesReady with the test extension's variables", func() (bool, string) {
		cc := &clusterv1.ClusterClass{}
		if err := f.c.Get(f.ctx, client.ObjectKey{Namespace: Namespace, Name: capimanagement.InMemoryClassName}, cc); err != nil {
			return false, err.Error()
		}
		if !meta.IsStatusConditionTrue(cc.Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition) {
			return false, fmt.Sprintf("conditions %+v", cc.Status.Conditions)
		}
		from := map[string]string{}
		for _, v := range cc.Status.Variables {
			for _, d := range v.Definitions {
				from[v.Name] = d.From
			}
		}
		for _, want := range []string{"kubeadmControlPlaneMaxSurge", "imageRepository"} {
			if from[want] != PatchName {
				return false, fmt.Sprintf("variable %s is from %q, want %q (variables %v)", want, from[want], PatchName, from)
			}
		}
		return true, ""
	})
}

func (f *flow) create(objects []*unstructured.Unstructured) {
	f.t.Helper()
	for _, u := range objects {
		u.SetNamespace(Namespace)
		if err := f.c.Create(f.ctx, u); err != nil {
			f.t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

// createClusterBlockedByBeforeClusterCreate creates the Cluster with a
// preloaded retry for BeforeClusterCreate, checks that the topology
// controller creates nothing while the hook blocks, then unblocks it.
func (f *flow) createClusterBlockedByBeforeClusterCreate() {
	f.t.Helper()
	hook := capimanagement.HookKey("BeforeClusterCreate")
	if err := capimanagement.PreloadResponse(f.ctx, f.c, Namespace, ClusterName, ExtensionConfigName, hook, blockingResponse); err != nil {
		f.t.Fatal(err)
	}
	objects, err := capimanagement.Render(f.ctx, f.binDir, capimanagement.ClusterTemplate, f.vars)
	if err != nil {
		f.t.Fatal(err)
	}
	f.created = time.Now()
	f.create(objects)
	f.eventually(settleTimeout, "BeforeClusterCreate blocks creation", func() (bool, string) {
		recorded, err := capimanagement.HookResponses(f.ctx, f.c, Namespace, ClusterName, ExtensionConfigName)
		if err != nil {
			return false, err.Error()
		}
		if got := recorded[hook]; got != "Status: Success, RetryAfterSeconds: 5" {
			return false, fmt.Sprintf("BeforeClusterCreate recorded %q", got)
		}
		// Asked again after the first retry, and still blocked: a manager
		// that went ahead once the retry was due would have created the
		// Cluster's objects by now.
		if asked := f.requests("beforeclustercreate"); asked < 2 {
			return false, fmt.Sprintf("BeforeClusterCreate asked %v times", asked)
		}
		// Read after the blocking answers were recorded: the topology
		// controller acts on each answer before it creates anything.
		cluster, err := f.readCluster()
		if err != nil {
			return false, err.Error()
		}
		if cluster.Spec.InfrastructureRef.IsDefined() || cluster.Spec.ControlPlaneRef.IsDefined() {
			f.t.Fatalf("the topology controller created the Cluster's objects while BeforeClusterCreate blocked: %+v %+v",
				cluster.Spec.InfrastructureRef, cluster.Spec.ControlPlaneRef)
		}
		c := meta.FindStatusCondition(cluster.Status.Conditions, clusterv1.ClusterTopologyReconciledCondition)
		if c == nil || !strings.Contains(c.Message, "BeforeClusterCreate") {
			return false, fmt.Sprintf("TopologyReconciled %+v does not name the blocking hook", c)
		}
		return true, ""
	})
	if err := capimanagement.PreloadResponse(f.ctx, f.c, Namespace, ClusterName, ExtensionConfigName, hook, unblocked); err != nil {
		f.t.Fatal(err)
	}
	f.eventually(settleTimeout, "creation goes ahead once BeforeClusterCreate succeeds", func() (bool, string) {
		cluster, err := f.readCluster()
		if err != nil {
			return false, err.Error()
		}
		return cluster.Spec.InfrastructureRef.IsDefined() && cluster.Spec.ControlPlaneRef.IsDefined(), "no infrastructure or control plane yet"
	})
}

func (f *flow) cluster() *clusterv1.Cluster {
	f.t.Helper()
	cluster, err := f.readCluster()
	if err != nil {
		f.t.Fatal(err)
	}
	return cluster
}

// readCluster reads the Cluster; checks polled by eventually use it and
// retry on an error, which may be transient.
func (f *flow) readCluster() (*clusterv1.Cluster, error) {
	cluster := &clusterv1.Cluster{}
	err := f.c.Get(f.ctx, client.ObjectKey{Namespace: Namespace, Name: ClusterName}, cluster)
	return cluster, err
}

// waitAvailable waits until the Cluster is Available and its topology
// reconciled at its generation, and notes the time as step.
func (f *flow) waitAvailable(step string) {
	f.t.Helper()
	f.eventually(stepTimeout, "the Cluster is Available ("+step+")", func() (bool, string) {
		cluster, err := f.readCluster()
		if err != nil {
			return false, err.Error()
		}
		for _, want := range []string{clusterv1.AvailableCondition, clusterv1.ClusterTopologyReconciledCondition} {
			c := meta.FindStatusCondition(cluster.Status.Conditions, want)
			if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != cluster.Generation {
				return false, fmt.Sprintf("%s is %+v", want, c)
			}
		}
		return true, ""
	})
	f.step(step)
}

// checkPatchesApplied looks for what only the test extension's
// GeneratePatches adds: the top-level-label-1 label on the templates the
// topology controller cloned for the Cluster.
func (f *flow) checkPatchesApplied() {
	f.t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("infrastructure.cluster.x-k8s.io/v1beta2")
	list.SetKind("DevMachineTemplateList")
	if err := f.c.List(f.ctx, list, client.InNamespace(Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: ClusterName}); err != nil {
		f.t.Fatal(err)
	}
	if len(list.Items) == 0 {
		f.t.Fatal("the topology controller cloned no DevMachineTemplate for the Cluster")
	}
	for _, u := range list.Items {
		if got := u.GetLabels()["top-level-label-1"]; got != "top-level-label-value-1" {
			f.t.Errorf("DevMachineTemplate %s has top-level-label-1 %q: the test extension's patch was not applied", u.GetName(), got)
		}
	}
}

// waitHooks waits until the test extension recorded a successful answer
// for each hook key, and keeps what it recorded.
func (f *flow) waitHooks(step string, keys ...string) {
	f.t.Helper()
	f.eventually(settleTimeout, step+": hooks "+strings.Join(keys, ", ")+" recorded", func() (bool, string) {
		recorded, err := capimanagement.HookResponses(f.ctx, f.c, Namespace, ClusterName, ExtensionConfigName)
		if err != nil {
			return false, err.Error()
		}
		for _, key := range keys {
			if !succeeded(recorded[key]) {
				return false, fmt.Sprintf("%s recorded %q (all: %v)", key, recorded[key], recorded)
			}
		}
		f.result.Hooks = recorded
		return true, ""
	})
}

// succeeded tells whether the test extension recorded a successful answer
// that does not block: "Success" for hooks that cannot block, and a
// RetryAfterSeconds of 0 for those that can.
func succeeded(recorded string) bool {
	return recorded == "Success" || recorded == "Status: Success, RetryAfterSeconds: 0"
}

// upgrade moves the topology to the next version and waits for every
// upgrade hook, every Machine at that version and the Cluster Available.
func (f *flow) upgrade() {
	f.t.Helper()
	from, to := f.vars["KUBERNETES_VERSION_UPGRADE_FROM"], f.vars["KUBERNETES_VERSION_UPGRADE_TO"]
	f.patchCluster(func(c *clusterv1.Cluster) { c.Spec.Topology.Version = to })
	f.eventually(stepTimeout, "every Machine runs "+to, func() (bool, string) {
		machines := &clusterv1.MachineList{}
		if err := f.c.List(f.ctx, machines, client.InNamespace(Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: ClusterName}); err != nil {
			return false, err.Error()
		}
		if len(machines.Items) != 1+WorkerMachines {
			return false, fmt.Sprintf("%d Machines", len(machines.Items))
		}
		for _, m := range machines.Items {
			if m.Spec.Version != to || m.DeletionTimestamp != nil {
				return false, fmt.Sprintf("Machine %s at %s (deleting: %v)", m.Name, m.Spec.Version, m.DeletionTimestamp != nil)
			}
		}
		return true, ""
	})
	f.waitHooks("upgrade",
		capimanagement.HookKey("BeforeClusterUpgrade", from, to),
		capimanagement.HookKey("BeforeControlPlaneUpgrade", from, to),
		capimanagement.HookKey("AfterControlPlaneUpgrade", to),
		capimanagement.HookKey("BeforeWorkersUpgrade", from, to),
		capimanagement.HookKey("AfterWorkersUpgrade", to),
		capimanagement.HookKey("AfterClusterUpgrade", to))
	f.waitAvailable("upgrade")
}

// scaleControlPlane scales the control plane and waits for that many
// control plane Machines, all ready, and the Cluster Available.
func (f *flow) scaleControlPlane(replicas int32) {
	f.t.Helper()
	f.patchCluster(func(c *clusterv1.Cluster) { c.Spec.Topology.ControlPlane.Replicas = &replicas })
	f.eventually(stepTimeout, fmt.Sprintf("the control plane has %d ready replicas", replicas), func() (bool, string) {
		cluster, err := f.readCluster()
		if err != nil {
			return false, err.Error()
		}
		cp := cluster.Status.ControlPlane
		if cp == nil || cp.ReadyReplicas == nil || *cp.ReadyReplicas != replicas || cp.Replicas == nil || *cp.Replicas != replicas {
			return false, fmt.Sprintf("control plane status %+v", cp)
		}
		return true, ""
	})
	f.waitAvailable("scale")
}

func (f *flow) patchCluster(mutate func(*clusterv1.Cluster)) {
	f.t.Helper()
	cluster := f.cluster()
	before := cluster.DeepCopy()
	mutate(cluster)
	if err := f.c.Patch(f.ctx, cluster, client.MergeFrom(before)); err != nil {
		f.t.Fatal(err)
	}
}

// delete deletes the Cluster and waits for BeforeClusterDelete and for the
// Cluster to be gone. No garbage collector runs here, so the objects it
// owns stay.
func (f *flow) delete() {
	f.t.Helper()
	if err := f.c.Delete(f.ctx, f.cluster()); err != nil {
		f.t.Fatal(err)
	}
	f.waitHooks("delete", capimanagement.HookKey("BeforeClusterDelete"))
	f.eventually(stepTimeout, "the Cluster is deleted", func() (bool, string) {
		err := f.c.Get(f.ctx, client.ObjectKey{Namespace: Namespace, Name: ClusterName}, &clusterv1.Cluster{})
		return apierrors.IsNotFound(err), fmt.Sprintf("get: %v", err)
	})
	f.step("delete")
}
