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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/proctest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/incluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/localclustertest"
)

// The Lease's namespace, as Cluster API's Deployment runs in: its manager
// reads it from the Pod's service account mount (it has no flag for it).
const leaseNamespace = "capi-system"

// standbyUser is the second replica's identity: no system:masters, only
// what Cluster API's own RBAC grants its manager.
const standbyUser = "core-manager-standby"

// inCluster writes a script that runs binary with its namespace mounted
// as a Pod's (test/incluster). Mounting takes root; CI runs as root.
func inCluster(t *testing.T, binary, namespace string) string {
	t.Helper()
	script, err := incluster.Script(t.TempDir(), binary, namespace)
	if errors.Is(err, incluster.ErrNotRoot) {
		if os.Getenv("CI") == "true" {
			t.Fatal("a private mount namespace needs root, which CI has")
		}
		t.Skip("a private mount namespace needs root")
	}
	if err != nil {
		t.Fatal(err)
	}
	return script
}

// clusterAPIRBAC reads an RBAC object of Cluster API's core manager from
// its module's config/rbac, named as its kustomization names it.
func clusterAPIRBAC(t *testing.T, file string, into client.Object) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(clusterAPIModuleDir(t), "core", "config", "rbac", file))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		t.Fatalf("decode %s: %v", file, err)
	}
	into.SetName("capi-" + into.GetName())
}

// grantClusterAPIsRBAC binds user to the ClusterRole and the leader
// election Role that Cluster API v1.14.2 gives its manager's ServiceAccount,
// and to the rights a provider adds to its aggregated role for its own
// kinds (this control plane runs no aggregation controller, so each is
// bound directly). It returns the name of the manager's ClusterRole.
func grantClusterAPIsRBAC(ctx context.Context, t *testing.T, c client.Client, user string) string {
	t.Helper()
	managerRole := &rbacv1.ClusterRole{}
	clusterAPIRBAC(t, "role.yaml", managerRole)
	leaderElection := &rbacv1.Role{}
	clusterAPIRBAC(t, "leader_election_role.yaml", leaderElection)
	leaderElection.Namespace = leaseNamespace
	providerKinds := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "generic-provider-kinds"},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{"infrastructure.cluster.x-k8s.io", "controlplane.cluster.x-k8s.io", "bootstrap.cluster.x-k8s.io"},
			Resources: []string{"*"}, Verbs: []string{"*"},
		}},
	}
	subject := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}
	objects := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: leaseNamespace}},
		managerRole, leaderElection, providerKinds,
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: leaseNamespace, Name: leaderElection.Name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: leaderElection.Name},
			Subjects:   subject,
		},
	}
	for _, role := range []string{managerRole.Name, providerKinds.Name} {
		objects = append(objects, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: user + "-" + role},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   subject,
		})
	}
	for _, obj := range objects {
		if err := c.Create(ctx, obj); err != nil {
			t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
		}
	}
	return managerRole.Name
}

// setExtensionConfigList grants or takes back, in Cluster API's manager
// ClusterRole, the right to list ExtensionConfigs, and waits until the
// apiserver's authorizer agrees.
func setExtensionConfigList(ctx context.Context, t *testing.T, c client.Client, role string, allowed bool) {
	t.Helper()
	cr := &rbacv1.ClusterRole{}
	if err := c.Get(ctx, client.ObjectKey{Name: role}, cr); err != nil {
		t.Fatal(err)
	}
	found := false
	for i, rule := range cr.Rules {
		if !slices.Contains(rule.APIGroups, runtimev1.GroupVersion.Group) || !slices.Contains(rule.Resources, "extensionconfigs") {
			continue
		}
		found = true
		verbs := slices.DeleteFunc(slices.Clone(rule.Verbs), func(v string) bool { return v == "list" })
		if allowed {
			verbs = append(verbs, "list")
		}
		cr.Rules[i].Verbs = verbs
	}
	if !found {
		t.Fatalf("Cluster API's ClusterRole %s has no rule for extensionconfigs: its RBAC changed shape", role)
	}
	if err := c.Update(ctx, cr); err != nil {
		t.Fatal(err)
	}
	polltest.Eventually(t, 30*time.Second, fmt.Sprintf("the authorizer says list of ExtensionConfigs allowed=%t", allowed), func() (bool, string) {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: standbyUser,
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: "list", Group: runtimev1.GroupVersion.Group, Resource: "extensionconfigs",
			},
		}}
		if err := c.Create(ctx, review); err != nil {
			return false, err.Error()
		}
		return review.Status.Allowed == allowed, fmt.Sprintf("allowed=%t", review.Status.Allowed)
	})
}

// klogTime reads the time of day a klog line of today was written at.
var klogTime = regexp.MustCompile(`(?m)^[IWE]\d{4} (\d{2}:\d{2}:\d{2}\.\d{6})`)

// firstLogTime returns when the first line of log holding text was
// written, and false when none does.
func firstLogTime(log, text string) (time.Time, bool) {
	for _, line := range strings.Split(log, "\n") {
		if !strings.Contains(line, text) {
			continue
		}
		m := klogTime.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		clock, err := time.Parse("15:04:05.000000", m[1])
		if err != nil {
			continue
		}
		now := time.Now()
		at := time.Date(now.Year(), now.Month(), now.Day(), clock.Hour(), clock.Minute(), clock.Second(), clock.Nanosecond(), time.Local)
		if at.After(now.Add(time.Minute)) {
			// Written before midnight, read after it.
			at = at.AddDate(0, 0, -1)
		}
		return at, true
	}
	return time.Time{}, false
}

// A standby warms its registry up at start and takes the lead later. Its
// registry then misses a config created since and holds another's old
// settings; a BeforeClusterCreate asked from it would skip the first and
// answer from the second, and the Cluster would be created without its
// blocking hook. The new leader must ask every extension from the
// registrations as they are, or not at all: here its first list of
// ExtensionConfigs as leader is refused by RBAC for as long as the test
// wants, which widens the window a slow kube-apiserver leaves open.
func TestDropIn_ANewLeaderNeverCallsExtensionsFromAStaleRegistry(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane, Cluster API's test extension and two replicas of the drop-in")
	}
	binDir := capimanagement.Require(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dir := t.TempDir()

	cluster, c := startTopologyControlPlane(ctx, t, binDir, dir)
	managerRole := grantClusterAPIsRBAC(ctx, t, c, standbyUser)

	// Cluster API's own test extension: it answers lifecycle hooks from,
	// and records every call in, a ConfigMap named after the Cluster and
	// the extensionConfigName setting of the call. A call made with old
	// settings leaves its record under the old name.
	extension, err := capimanagement.NewTestExtension(dir)
	if err != nil {
		t.Fatal(err)
	}
	extensionKubeconfig, _, err := localclustertest.User(cluster, capimanagement.TestExtensionName)
	if err != nil {
		t.Fatal(err)
	}
	extensionProcess, err := extension.Start(ctx, binDir, extensionKubeconfig, filepath.Join(dir, "test-extension.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(extensionProcess.Stop)
	hooks := func(name, recordsAs string, blocking bool) *runtimev1.ExtensionConfig {
		return &runtimev1.ExtensionConfig{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: runtimev1.ExtensionConfigSpec{
				ClientConfig:      runtimev1.ClientConfig{URL: extension.URL, CABundle: extension.CA},
				NamespaceSelector: &metav1.LabelSelector{},
				Settings: map[string]string{
					"extensionConfigName":          recordsAs,
					"defaultAllHandlersToBlocking": fmt.Sprint(blocking),
				},
			},
		}
	}
	const ns = "default"
	objects := append([]client.Object{hooks("hooks-a", "stale-a", false), topologyClass(ns, "plain")}, topologyTemplates(ns)...)
	for _, obj := range objects {
		if err := c.Create(ctx, obj); err != nil {
			t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
		}
	}

	replicaArgs := []string{
		"--leader-elect",
		// Shorter than Cluster API's 15/10/2 s, so that the takeover
		// takes seconds; the order of events is the same.
		"--leader-elect-lease-duration=6s", "--leader-elect-renew-deadline=4s", "--leader-elect-retry-period=1s",
	}
	wrapped := inCluster(t, coreManager, leaseNamespace)
	startReplica := func(user string, groups ...string) (*capibaseline.Manager, string) {
		t.Helper()
		kubeconfig, _, err := localclustertest.UserInGroups(cluster, user, groups...)
		if err != nil {
			t.Fatal(err)
		}
		logPath := filepath.Join(dir, user+".log")
		m, err := capibaseline.Start(ctx, capibaseline.Options{
			BinDir: binDir, Binary: wrapped, Kubeconfig: kubeconfig, LogPath: logPath, Args: replicaArgs,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(m.Stop)
		t.Cleanup(func() {
			if t.Failed() {
				if data, err := os.ReadFile(logPath); err == nil {
					var election []string
					for _, line := range strings.Split(string(data), "\n") {
						if strings.Contains(line, "lease") {
							election = append(election, line)
						}
					}
					t.Logf("%s log, leader election:\n%s\nlast 40 lines:\n%s", user, strings.Join(election, "\n"), proctest.Tail(string(data), 40))
				}
			}
		})
		return m, logPath
	}
	readLog := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	// What client-go's leader election logs on taking the Lease. On
	// controller-runtime v0.24, as Cluster API v1.14.2 links it, the line
	// comes from klog's global logger, with no logger="leaderelection".
	const acquired = `"Successfully acquired lease" lock="` + leaseNamespace + `/controller-leader-election-capi"`

	// The first replica leads, as a cluster-admin.
	first, firstLog := startReplica("core-manager", "system:masters")
	polltest.Eventually(t, time.Minute, "the first replica leads", func() (bool, string) {
		return strings.Contains(readLog(firstLog), acquired), "no lease yet"
	})
	discoveredAt := func(name string) func() (bool, string) {
		return func() (bool, string) {
			ext := &runtimev1.ExtensionConfig{}
			if err := c.Get(ctx, client.ObjectKey{Name: name}, ext); err != nil {
				return false, err.Error()
			}
			cond := meta.FindStatusCondition(ext.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition)
			return cond != nil && cond.Status == metav1.ConditionTrue && cond.ObservedGeneration == ext.Generation, fmt.Sprintf("Discovered %v", cond)
		}
	}
	polltest.Eventually(t, time.Minute, "hooks-a discovered", discoveredAt("hooks-a"))
	polltest.Eventually(t, time.Minute, "the ClusterClass reconciled", func() (bool, string) {
		cc := &clusterv1.ClusterClass{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "plain"}, cc); err != nil {
			return false, err.Error()
		}
		return cc.Status.ObservedGeneration == cc.Generation && meta.IsStatusConditionTrue(cc.Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition),
			fmt.Sprintf("conditions %v", cc.Status.Conditions)
	})

	// The standby starts with Cluster API's RBAC and warms up (it is ready
	// only then): its registry holds hooks-a with the settings of now.
	standby, standbyLog := startReplica(standbyUser)

	// Later, under the first leader: hooks-a's settings change, so that its
	// records move to another name and its BeforeClusterCreate blocks, and
	// hooks-b is created. The standby never lists them.
	setExtensionConfigList(ctx, t, c, managerRole, false)
	changed := &runtimev1.ExtensionConfig{}
	if err := c.Get(ctx, client.ObjectKey{Name: "hooks-a"}, changed); err != nil {
		t.Fatal(err)
	}
	changed.Spec.Settings = hooks("hooks-a", "hooks-a", true).Spec.Settings
	if err := c.Update(ctx, changed); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, hooks("hooks-b", "hooks-b", true)); err != nil {
		t.Fatal(err)
	}
	polltest.Eventually(t, time.Minute, "hooks-a discovered with its new settings", discoveredAt("hooks-a"))
	polltest.Eventually(t, time.Minute, "hooks-b discovered", discoveredAt("hooks-b"))

	// The leader dies without a word, and a Cluster is created while the
	// standby comes up as leader. No webhook is registered with this
	// control plane: the Cluster sets what Cluster API's defaulting
	// webhook would.
	if err := syscall.Kill(first.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	topologyCluster := clusterOf(ns, "takeover", "plain")

	if err := c.Create(ctx, topologyCluster); err != nil {
		t.Fatal(err)
	}
	// A config created while no replica leads records no handlers when
	// the new leader lists it: calls wait for its first Discovery.
	if err := c.Create(ctx, hooks("hooks-c", "hooks-c", true)); err != nil {
		t.Fatal(err)
	}
	nothingCreated := func(when string) {
		t.Helper()
		infra, cp := listOf(ctx, t, c, infraCluster, ns), listOf(ctx, t, c, controlPlane, ns)
		if len(infra)+len(cp) != 0 {
			records, _ := capimanagement.HookResponses(ctx, c, ns, topologyCluster.Name, "stale-a")
			t.Fatalf("%s: %d infrastructure clusters and %d control planes exist: BeforeClusterCreate was skipped or answered from a stale registry (records under the old settings: %v)",
				when, len(infra), len(cp), records)
		}
	}

	// The standby leads; its list of ExtensionConfigs is refused. Every
	// call fails, naming the refusal, and nothing is created.
	polltest.Eventually(t, time.Minute, "the standby leads", func() (bool, string) {
		nothingCreated("while the standby takes the lead")
		return strings.Contains(readLog(standbyLog), acquired), "no lease yet"
	})
	ledAt, ok := firstLogTime(readLog(standbyLog), acquired)
	if !ok {
		t.Fatal("the standby's log has no time for taking the lead")
	}
	refusal := regexp.MustCompile(regexp.QuoteMeta(registry.ErrNotCurrent.Error()) + `: list ExtensionConfigs: [^"]*forbidden`)
	polltest.Eventually(t, time.Minute, "Cluster API's topology controller retries, told the registry is not current and why", func() (bool, string) {
		nothingCreated("while the new leader's list is refused")
		return refusal.MatchString(readLog(standbyLog)), "no call refused yet"
	})
	refusedAt, ok := firstLogTime(readLog(standbyLog), registry.ErrNotCurrent.Error())
	if !ok {
		t.Fatal("the standby's log has no time for the refused call")
	}
	polltest.Consistently(t, 3*time.Second, "nothing is created while the list is refused", func() (bool, string) {
		infra, cp := listOf(ctx, t, c, infraCluster, ns), listOf(ctx, t, c, controlPlane, ns)
		return len(infra)+len(cp) == 0, fmt.Sprintf("%d infrastructure clusters, %d control planes", len(infra), len(cp))
	})

	// The list is allowed again: the registry is rebuilt, and both hooks
	// are asked with the settings of now before anything exists.
	setExtensionConfigList(ctx, t, c, managerRole, true)
	recorded := map[string]time.Time{}
	polltest.Eventually(t, time.Minute, "BeforeClusterCreate asked of hooks-a, hooks-b and hooks-c with their current settings", func() (bool, string) {
		nothingCreated("while BeforeClusterCreate blocks")
		for _, name := range []string{"hooks-a", "hooks-b", "hooks-c"} {
			records, err := capimanagement.HookResponses(ctx, c, ns, topologyCluster.Name, name)
			if err != nil {
				return false, err.Error()
			}
			if _, ok := records["BeforeClusterCreate"]; !ok {
				return false, name + " not asked yet"
			}
			if _, seen := recorded[name]; !seen {
				recorded[name] = time.Now()
			}
		}
		return true, ""
	})
	if stale, err := capimanagement.HookResponses(ctx, c, ns, topologyCluster.Name, "stale-a"); err != nil || len(stale) != 0 {
		t.Errorf("hooks-a was asked with its old settings: records %v (%v)", stale, err)
	}
	standbyText := readLog(standbyLog)
	currentAt, ok := firstLogTime(standbyText, "registry rebuilt on taking the lead")
	if !ok {
		t.Error("the new leader never logged that its registry was rebuilt")
	}
	t.Logf("timeline from the SIGKILL of the leader: the standby led after %s, its first call was refused after %s, its registry was rebuilt after %s, and BeforeClusterCreate was recorded by hooks-a after %s, hooks-b after %s and hooks-c after %s",
		ledAt.Sub(killed).Round(time.Millisecond), refusedAt.Sub(killed).Round(time.Millisecond), currentAt.Sub(killed).Round(time.Millisecond),
		recorded["hooks-a"].Sub(killed).Round(time.Millisecond), recorded["hooks-b"].Sub(killed).Round(time.Millisecond),
		recorded["hooks-c"].Sub(killed).Round(time.Millisecond))

	// The hooks let creation go ahead: the flow goes on under the new leader.
	for _, name := range []string{"hooks-a", "hooks-b", "hooks-c"} {
		if err := capimanagement.PreloadResponse(ctx, c, ns, topologyCluster.Name, name, "BeforeClusterCreate", `{"Status": "Success"}`); err != nil {
			t.Fatal(err)
		}
	}
	polltest.Eventually(t, time.Minute, "the topology is created once the hooks allow it", func() (bool, string) {
		n := len(listOf(ctx, t, c, infraCluster, ns))
		return n == 1, fmt.Sprintf("%d infrastructure clusters", n)
	})

	// Cluster API's RBAC was enough for everything else the new leader did.
	for _, line := range strings.Split(readLog(standbyLog), "\n") {
		if strings.Contains(line, "forbidden") && !strings.Contains(line, "extensionconfigs") {
			t.Errorf("the standby, with Cluster API's RBAC, was refused: %s", line)
		}
	}
	if exited, err := standby.Exited(); exited {
		t.Errorf("the new leader exited: %v", err)
	}
}
