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

package extensionconfig

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextensiontest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// changeLog keeps the registry's changes of one config, as the response
// cache and the variables cache see them: each forgets the answers of a
// handler whose fingerprint changed.
type changeLog struct {
	mu      sync.Mutex
	changed map[string]int
}

func (l *changeLog) record(config string) func([]registration.Change) {
	return func(changes []registration.Change) {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, c := range changes {
			if c.Kind == registration.Changed && c.New.ExtensionConfig == config {
				l.changed[c.Handler]++
			}
		}
	}
}

func (l *changeLog) total() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, v := range l.changed {
		n += v
	}
	return n
}

// servedRegistration is what a manager registers for a config while calls
// go to clientConfig: the handlers its status records, with its settings
// and namespaceSelector as they are.
func servedRegistration(t *testing.T, name string, clientConfig runtimev1.ClientConfig) []registry.Handler {
	t.Helper()
	served := getExtensionConfig(t, name)
	served.Spec.ClientConfig = clientConfig
	fresh := registry.New()
	if _, _, err := fresh.Register(served); err != nil {
		t.Fatal(err)
	}
	return fresh.ForConfig(name)
}

// callDiscoverVariables calls the registered DiscoverVariables handler of
// a config where the registry sends it.
func callDiscoverVariables(t *testing.T, reg *registry.Registry, name string) error {
	t.Helper()
	h, ok := reg.Get("discover-variables." + name)
	if !ok {
		return errors.New("no DiscoverVariables handler registered")
	}
	calls, err := rtclient.New(rtclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return calls.Call(context.Background(), h.ClientConfig, h.Hook, h.HandlerName, 5*time.Second, h.Settings,
		&runtimehooksv1.DiscoverVariablesRequest{}, &runtimehooksv1.DiscoverVariablesResponse{})
}

// An edit of an ExtensionConfig's clientConfig is make-before-break: calls
// keep going to the last clientConfig a Discovery succeeded with until a
// Discovery with the new one succeeds, so a typo in its URL or CA breaks
// no hook that was working. A change of settings still takes effect while
// Discovery fails, and voids every handler's cached answers in both caches.
func TestReconcile_ANewClientConfigServesOnlyOnceDiscoverySucceedsWithIt(t *testing.T) {
	h := startController(t, rtclient.Options{}, 0)
	ext := startExtension(t)
	name := uniqueName("failing")
	good := runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}
	createExtensionConfig(t, name, good, nil)
	waitDiscovered(t, name, metav1.ConditionTrue)
	log := &changeLog{changed: map[string]int{}}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	h.registry.Subscribe(ctx, log.record(name))

	// Discovery fails from now on; the rediscover annotation asks for one.
	ext.Server.SetFaults("Discovery", sampleextension.Faults{ErrorRate: 1})
	updateExtensionConfig(t, name, func(e *runtimev1.ExtensionConfig) {
		e.Annotations = map[string]string{userfacing.RediscoverAnnotation: "1"}
	})
	waitDiscovered(t, name, metav1.ConditionFalse, "Discovery failed")

	otherCA, _, _, err := sampleextension.SelfSignedCertificate([]string{"localhost"}, 48*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name   string
		change func(*runtimev1.ExtensionConfig)
		// failure is part of the Discovered message the change leads to.
		failure string
		// voids is whether the change tells the caches every handler
		// changed: only settings do, as calls still go where they went.
		voids bool
	}{
		{"settings", func(e *runtimev1.ExtensionConfig) { e.Spec.Settings = map[string]string{"tier": "gold"} }, "Discovery failed", true},
		{"CA of another authority", func(e *runtimev1.ExtensionConfig) { e.Spec.ClientConfig.CABundle = otherCA }, "certificate", false},
		{"CA that is not PEM", func(e *runtimev1.ExtensionConfig) { e.Spec.ClientConfig.CABundle = []byte("not a certificate") }, "no PEM certificate", false},
		{"URL with a wrong port", func(e *runtimev1.ExtensionConfig) {
			e.Spec.ClientConfig = runtimev1.ClientConfig{URL: sampleextensiontest.UnreachableURL(t), CABundle: ext.CA}
		}, "unreachable", false},
	}
	for _, step := range steps {
		changesBefore := log.total()
		updateExtensionConfig(t, name, step.change)
		waitDiscovered(t, name, metav1.ConditionFalse, step.failure)
		polltest.Eventually(t, eventually, "the "+step.name+" change registered while Discovery fails", func() (bool, string) {
			want, got := servedRegistration(t, name, good), h.registry.ForConfig(name)
			if len(want) == 0 {
				return false, "the config records no handlers"
			}
			if !reflect.DeepEqual(got, want) {
				return false, fmt.Sprintf("registered %+v, want the recorded handlers with the last good clientConfig %+v", got, want)
			}
			return true, ""
		})
		want := 0
		if step.voids {
			want = len(h.registry.ForConfig(name))
		}
		if n := log.total() - changesBefore; n != want {
			t.Errorf("the %s change told the caches of %d changed handlers, want %d", step.name, n, want)
		}
		if err := callDiscoverVariables(t, h.registry, name); err != nil {
			t.Errorf("after the %s change, a hook that worked fails: %v", step.name, err)
		}
	}
	if n := len(getExtensionConfig(t, name).Status.Handlers); n != 3 {
		t.Errorf("failed Discovery left %d recorded handlers, want the 3 it last found", n)
	}

	// The extension moves, and Discovery succeeds there: calls follow.
	moved := startExtension(t)
	updateExtensionConfig(t, name, func(e *runtimev1.ExtensionConfig) {
		e.Spec.ClientConfig = runtimev1.ClientConfig{URL: moved.URL, CABundle: moved.CA}
	})
	waitDiscovered(t, name, metav1.ConditionTrue)
	polltest.Eventually(t, eventually, "calls go where Discovery succeeded", func() (bool, string) {
		got := h.registry.ForConfig(name)
		if len(got) == 0 || got[0].ClientConfig.URL != moved.URL {
			return false, fmt.Sprintf("registered %+v", got)
		}
		return true, ""
	})
	const served = "DiscoverVariables/discover-variables"
	calledBefore := moved.Server.Calls()[served]
	if err := callDiscoverVariables(t, h.registry, name); err != nil {
		t.Errorf("the moved extension: %v", err)
	}
	if moved.Server.Calls()[served] != calledBefore+1 {
		t.Errorf("the call did not reach the moved extension: calls %v", moved.Server.Calls())
	}
}

// A CA rotated through the annotated Secret moves the generation with the
// injected caBundle, and the event of that write is dropped as our own:
// every condition still observes the new generation within seconds.
func TestReconcile_ACARotationLeavesEveryConditionAtTheCurrentGeneration(t *testing.T) {
	policy := &maxAges{got: map[string]time.Duration{}}
	startControllerWith(t, rtclient.Options{}, 0, harnessOptions{responseCache: policy})
	ext := startExtension(t)
	ns := env.Namespace(t, nil)
	name := uniqueName("rotate-gen")
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "extension-ca"},
		Data:       map[string][]byte{"ca.crt": ext.CA},
	}
	if err := env.Client.Create(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL}, map[string]string{
		runtimev1.InjectCAFromSecretAnnotation:   ns + "/extension-ca",
		userfacing.ResponseCacheMaxAgeAnnotation: "5m",
	})
	waitDiscovered(t, name, metav1.ConditionTrue)
	generation := getExtensionConfig(t, name).Generation

	otherCA, _, _, err := sampleextension.SelfSignedCertificate([]string{"localhost"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	secret.Data["ca.crt"] = append(append([]byte{}, ext.CA...), otherCA...)
	if err := env.Client.Update(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	// Within seconds: Cluster API's controller heals this as fast.
	polltest.Eventually(t, 5*time.Second, "every condition at the generation of the rotated caBundle", func() (bool, string) {
		got := getExtensionConfig(t, name)
		if got.Generation == generation {
			return false, "the caBundle is not injected yet"
		}
		if len(got.Status.Conditions) != 3 {
			return false, fmt.Sprintf("conditions %+v, want Discovered, Paused and %s", got.Status.Conditions, userfacing.ResponsesCachedCondition)
		}
		for _, c := range got.Status.Conditions {
			if c.ObservedGeneration != got.Generation {
				return false, fmt.Sprintf("%s observes generation %d of %d", c.Type, c.ObservedGeneration, got.Generation)
			}
		}
		return true, ""
	})
}

// A config that records no handlers when a replica takes the lead has none
// registered: a blocking hook would pass without it. Calls wait, naming it,
// until its first reconcile as leader has run Discovery.
func TestLeaderSync_CallsWaitForTheFirstDiscoveryOfAnUndiscoveredConfig(t *testing.T) {
	ext := startExtension(t)
	ext.Server.SetFaults("Discovery", sampleextension.Faults{Delay: 3 * time.Second})
	name := uniqueName("undiscovered")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}, nil)

	h := startController(t, rtclient.Options{}, 0)
	polltest.Eventually(t, eventually, "the registry rebuilt as leader", func() (bool, string) {
		select {
		case <-h.registry.Gate().Done(registry.Rebuilt):
			return true, ""
		default:
			return false, "not yet"
		}
	})
	if err := h.registry.Gate().Err(); !errors.Is(err, registry.ErrNotCurrent) || !strings.Contains(err.Error(), name) {
		t.Errorf("while %s's first Discovery runs: Gate().Err() = %v, want an error naming it", name, err)
	}
	polltest.Eventually(t, eventually, "current once the config is discovered", func() (bool, string) {
		if err := h.registry.Gate().Err(); err != nil {
			return false, err.Error()
		}
		return len(h.registry.ForConfig(name)) == 3, fmt.Sprintf("%d handlers registered", len(h.registry.ForConfig(name)))
	})
}

// A config whose first Discovery as leader fails keeps calls waiting: a
// Cluster created meanwhile would run its one-shot BeforeClusterCreate
// without it. They go on once a Discovery succeeds.
func TestLeaderSync_CallsWaitUntilTheFirstDiscoverySucceeds(t *testing.T) {
	ext := startExtension(t)
	ext.Server.SetFaults("Discovery", sampleextension.Faults{ErrorRate: 1})
	name := uniqueName("restarting")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}, nil)

	h := startController(t, rtclient.Options{}, 0)
	// A second Discovery means the first reconcile has finished.
	polltest.Eventually(t, eventually, "two failed Discoveries", func() (bool, string) {
		n := ext.Server.Calls()["Discovery"]
		return n >= 2, fmt.Sprintf("%d Discovery calls", n)
	})
	if err := h.registry.Gate().Err(); !errors.Is(err, registry.ErrNotCurrent) || !strings.Contains(err.Error(), name) {
		t.Errorf("after %s's Discovery failed: Gate().Err() = %v, want an error naming it", name, err)
	}
	ext.Server.ResetFaults()
	polltest.Eventually(t, eventually, "current once a Discovery succeeds", func() (bool, string) {
		if err := h.registry.Gate().Err(); err != nil {
			return false, err.Error()
		}
		return len(h.registry.ForConfig(name)) == 3, fmt.Sprintf("%d handlers registered", len(h.registry.ForConfig(name)))
	})
}

// listedBefore answers the lists of ExtensionConfigs (warm-up's and the
// rebuild's as leader) with one taken earlier, as kube-apiserver answers a
// list that a delete follows before the informer starts; everything else
// reads kube-apiserver.
type listedBefore struct {
	client.Reader
	snapshot *runtimev1.ExtensionConfigList
}

func (l *listedBefore) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if into, ok := list.(*runtimev1.ExtensionConfigList); ok {
		l.snapshot.DeepCopyInto(into)
		return nil
	}
	return l.Reader.List(ctx, list, opts...)
}

// A config the rebuild as leader listed with no handlers, and deleted
// before the informer saw it, gets no event: it is reconciled all the same,
// and calls wait for it no longer than that reconcile.
func TestLeaderSync_ACallNeverWaitsForAConfigThatIsGone(t *testing.T) {
	env.Skip(t)
	name := uniqueName("gone")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: sampleextensiontest.UnreachableURL(t)}, nil)
	snapshot := &runtimev1.ExtensionConfigList{}
	if err := env.Client.List(context.Background(), snapshot); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(context.Background(), getExtensionConfig(t, name)); err != nil {
		t.Fatal(err)
	}

	h := startControllerWith(t, rtclient.Options{}, 0, harnessOptions{listReader: &listedBefore{Reader: env.Client, snapshot: snapshot}})
	waitCallsGoOut(t, h)
}

// A standby learns from its informer where each config's calls go: when
// it takes the lead after a typo in a clientConfig, calls still go to the
// last clientConfig a Discovery succeeded with. A fresh start after the
// typo knows only the spec, and registers under it.
func TestLeaderSync_AStandbyKeepsTheLastProvenClientConfigAcrossATakeover(t *testing.T) {
	lease := uniqueName("extensionconfig-test")
	leader := startControllerWith(t, rtclient.Options{}, 0, harnessOptions{leaderElectionID: lease})
	polltest.Eventually(t, eventually, "the first replica leads", func() (bool, string) {
		return leader.registry.Gate().IsOpen(registry.Rebuilt), "not yet"
	})
	standby := startControllerWith(t, rtclient.Options{}, 0, harnessOptions{leaderElectionID: lease})
	polltest.Eventually(t, eventually, "the standby warmed up", func() (bool, string) {
		return standby.registry.Gate().IsOpen(registry.WarmedUp), "not yet"
	})
	// Created now, the config is discovered while the standby watches:
	// only its informer can tell it where calls went.
	ext := startExtension(t)
	name := uniqueName("takeover")
	good := runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}
	createExtensionConfig(t, name, good, nil)
	waitDiscovered(t, name, metav1.ConditionTrue)

	typo := runtimev1.ClientConfig{URL: sampleextensiontest.UnreachableURL(t), CABundle: ext.CA}
	updateExtensionConfig(t, name, func(e *runtimev1.ExtensionConfig) { e.Spec.ClientConfig = typo })
	waitDiscovered(t, name, metav1.ConditionFalse, "Discovery failed")
	leader.stop()
	polltest.Eventually(t, eventually, "the standby rebuilt the registry as leader", func() (bool, string) {
		return standby.registry.Gate().IsOpen(registry.Rebuilt), "not yet"
	})
	if got := standby.registry.ForConfig(name); len(got) != 3 || got[0].ClientConfig.URL != good.URL {
		t.Errorf("the new leader registered %+v, want the 3 recorded handlers at %s", got, good.URL)
	}
	if err := callDiscoverVariables(t, standby.registry, name); err != nil {
		t.Errorf("after the takeover, a hook that worked fails: %v", err)
	}

	fresh := startController(t, rtclient.Options{}, 0)
	polltest.Eventually(t, eventually, "a fresh start registers under the spec", func() (bool, string) {
		got := fresh.registry.ForConfig(name)
		return len(got) == 3 && got[0].ClientConfig.URL == typo.URL, fmt.Sprintf("registered %+v", got)
	})
}

// A config that records no handlers but that no Discovery will run for (it
// is paused, another manager's, or its namespaceSelector is invalid) holds
// no call up: it can have no handler to skip.
func TestLeaderSync_CallsNeverWaitForAConfigNoDiscoveryRunsFor(t *testing.T) {
	env.Skip(t)
	unreachable := runtimev1.ClientConfig{URL: sampleextensiontest.UnreachableURL(t)}
	const ours = "ours"
	configs := []*runtimev1.ExtensionConfig{
		{ObjectMeta: metav1.ObjectMeta{Name: uniqueName("paused"), Labels: map[string]string{clusterv1.WatchLabel: ours},
			Annotations: map[string]string{clusterv1.PausedAnnotation: ""}}},
		{ObjectMeta: metav1.ObjectMeta{Name: uniqueName("another-managers"), Labels: map[string]string{clusterv1.WatchLabel: "theirs"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: uniqueName("invalid-selector"), Labels: map[string]string{clusterv1.WatchLabel: ours}},
			Spec: runtimev1.ExtensionConfigSpec{NamespaceSelector: &metav1.LabelSelector{
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn}},
			}}},
	}
	for _, ext := range configs {
		ext.Spec.ClientConfig = unreachable
		env.CreateExtensionConfig(t, ext)
	}

	h := startControllerWith(t, rtclient.Options{}, 0, harnessOptions{watchFilter: ours})
	waitCallsGoOut(t, h)
	waitDiscovered(t, configs[2].Name, metav1.ConditionFalse, "spec.namespaceSelector is invalid")
}

// The rebuild lists live, and enqueues a config its cache may not hold
// yet (the watch reconnecting after kube-apiserver restarted): the cache's
// NotFound is not taken for gone, and calls keep waiting for the config.
func TestLeaderSync_ACallWaitsForAConfigTheCacheHasNotSeen(t *testing.T) {
	env.Skip(t)
	name := uniqueName("unseen")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: sampleextensiontest.UnreachableURL(t)}, nil)
	// A cache that sees only labelled configs stands for one whose watch
	// has not delivered this config yet.
	visible, err := labels.Parse("rsc.test/visible=true")
	if err != nil {
		t.Fatal(err)
	}
	h := startControllerWith(t, rtclient.Options{}, 0, harnessOptions{
		cache: ctrlcache.Options{ByObject: map[client.Object]ctrlcache.ByObject{&runtimev1.ExtensionConfig{}: {Label: visible}}},
	})
	polltest.Eventually(t, eventually, "the config's reconcile found it missing from the cache, or calls went out", func() (bool, string) {
		opened := h.registry.Gate().IsOpen(registry.Rebuilt) && h.registry.Gate().Err() == nil
		return opened || strings.Contains(h.logs.String(), "the cache has not seen it yet"), "neither yet"
	})
	if err := h.registry.Gate().Err(); !errors.Is(err, registry.ErrNotCurrent) || !strings.Contains(err.Error(), name) {
		t.Errorf("while the cache has not seen %s: Gate().Err() = %v, want an error naming it", name, err)
	}
}

// denyStatusWrites makes kube-apiserver refuse every status write of the
// named ExtensionConfig until the test ends, as a webhook or a policy on
// status might.
func denyStatusWrites(t *testing.T, name string) {
	t.Helper()
	ctx := context.Background()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				ResourceNames: []string{name},
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{runtimev1.GroupVersion.Group}, APIVersions: []string{"*"},
						Resources: []string{"extensionconfigs/status"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{Expression: "false", Message: "status writes are refused by the test"}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}},
	}
	for _, obj := range []client.Object{policy, binding} {
		if err := env.Client.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(ctx, obj) })
	}
}

// A config's first Discovery as leader that status cannot record does
// not let calls go: the registry goes back to what status records, none.
func TestLeaderSync_CallsWaitWhileStatusCannotRecordTheFirstDiscovery(t *testing.T) {
	ext := startExtension(t)
	name := uniqueName("unrecorded")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}, nil)
	denyStatusWrites(t, name)
	// The policy takes effect once kube-apiserver has loaded it.
	polltest.Eventually(t, eventually, "status writes refused", func() (bool, string) {
		probe := getExtensionConfig(t, name)
		probe.Status.Conditions = []metav1.Condition{{Type: "Probe", Status: metav1.ConditionTrue, Reason: "Probe", LastTransitionTime: metav1.Now()}}
		err := env.Client.Status().Update(context.Background(), probe)
		return err != nil && strings.Contains(err.Error(), "refused by the test"), fmt.Sprintf("status update: %v", err)
	})

	h := startController(t, rtclient.Options{}, 0)
	polltest.Eventually(t, eventually, "Discovery ran and its status write failed", func() (bool, string) {
		return strings.Contains(h.logs.String(), "refused by the test"), "not yet"
	})
	if err := h.registry.Gate().Err(); !errors.Is(err, registry.ErrNotCurrent) || !strings.Contains(err.Error(), name) {
		t.Errorf("while status cannot record %s's Discovery: Gate().Err() = %v, want an error naming it", name, err)
	}
}

// waitCallsGoOut waits until the gate lets calls out, well below the 60 s
// bound it would otherwise wait for a config.
func waitCallsGoOut(t *testing.T, h *harness) {
	t.Helper()
	polltest.Eventually(t, 20*time.Second, "calls go out", func() (bool, string) {
		if !h.registry.Gate().IsOpen(registry.Rebuilt) {
			return false, "not rebuilt yet"
		}
		if err := h.registry.Gate().Err(); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
}
