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
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/logcap"
	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/apiservertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextensiontest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/shutdownhang"
)

var env *apiservertest.Env

func TestMain(m *testing.M) { os.Exit(apiservertest.Run(m, &env)) }

const (
	hooksAPIVersion = "hooks.runtime.cluster.x-k8s.io/v1alpha1"
	// eventually bounds every wait for the controller.
	eventually = 30 * time.Second
)

type harness struct {
	registry *registry.Registry
	logs     *polltest.Buffer
	mgr      ctrl.Manager
	// stop stops the manager, releasing its Lease if it holds one.
	stop context.CancelFunc
}

// startController runs the ExtensionConfig controller in its own manager
// against the test control plane until the test ends.
func startController(t *testing.T, clientOpts rtclient.Options, rediscovery time.Duration) *harness {
	t.Helper()
	return startControllerWith(t, clientOpts, rediscovery, harnessOptions{})
}

// harnessOptions set up the manager beyond startController's defaults.
type harnessOptions struct {
	// cache is the manager's cache options.
	cache ctrlcache.Options
	// secretCache gives the CA watch a Secret metadata cache of its own.
	secretCache bool
	// watchFilter is the Reconciler's WatchFilterValue.
	watchFilter string
	// responseCache is the Reconciler's ResponseCache; unset, one that
	// records and serves nothing.
	responseCache ResponseCachePolicy
	// listReader is the Reconciler's listReader.
	listReader client.Reader
	// leaderElectionID, when set, makes the manager a replica that runs
	// the controllers only while it holds this Lease.
	leaderElectionID string
	// controller is the controller's options (names are never checked).
	controller controller.Options
}

// queueDumps drops controller-runtime's priority queue dumps of its items
// (V(5) "workqueue_items"), which it logs outside its lock (v0.24.1,
// priorityqueue.go's logState): encoding them is a data race that -race
// reports once an item waits to be requeued.
type queueDumps struct{ logr.LogSink }

func (q queueDumps) Info(level int, msg string, keysAndValues ...any) {
	if msg != "workqueue_items" {
		q.LogSink.Info(level, msg, keysAndValues...)
	}
}

func (q queueDumps) WithValues(keysAndValues ...any) logr.LogSink {
	return queueDumps{q.LogSink.WithValues(keysAndValues...)}
}

func (q queueDumps) WithName(name string) logr.LogSink { return queueDumps{q.LogSink.WithName(name)} }

func withoutQueueDumps(log logr.Logger) logr.Logger { return logr.New(queueDumps{log.GetSink()}) }

// startControllerWith is startController with more settings.
func startControllerWith(t *testing.T, clientOpts rtclient.Options, rediscovery time.Duration, o harnessOptions) *harness {
	t.Helper()
	env.Skip(t)
	logs := &polltest.Buffer{}
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		// As cmd/runtime-sdk-controller does, at the highest verbosity.
		Logger:                 withoutQueueDumps(logcap.Cap(zap.New(zap.WriteTo(logs), zap.Level(zapcore.Level(-10))), logcap.MaxVerbosity)),
		Scheme:                 env.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  o.cache,
		LeaderElection:         o.leaderElectionID != "",
		LeaderElectionID:       o.leaderElectionID,
		// The test's namespace is created per test; leases live in
		// default, each test with its own ID.
		LeaderElectionNamespace:       metav1.NamespaceDefault,
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := rtclient.New(clientOpts)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	if o.responseCache == nil {
		o.responseCache = &maxAges{got: map[string]time.Duration{}}
	}
	r := &Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Discoverer: rc, Registry: reg,
		RediscoveryInterval: rediscovery, WatchFilterValue: o.watchFilter, ResponseCache: o.responseCache,
		listReader: o.listReader,
	}
	if o.secretCache {
		c, err := ctrlcache.New(mgr.GetConfig(), ctrlcache.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(), HTTPClient: mgr.GetHTTPClient()})
		if err != nil {
			t.Fatal(err)
		}
		if err := mgr.Add(c); err != nil {
			t.Fatal(err)
		}
		r.SecretMetadata = c
	} else {
		// The test's manager caches every Secret.
		r.SecretMetadata = mgr.GetCache()
	}
	ctx, cancel := context.WithCancel(context.Background())
	o.controller.SkipNameValidation = ptr.To(true)
	if err := r.SetupWithManager(ctx, mgr, o.controller); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	hangs := shutdownhang.Watch()
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		hangs.Check(t, <-done)
	})
	return &harness{registry: reg, logs: logs, mgr: mgr, stop: cancel}
}

type extension = sampleextension.Running

// startExtension serves a sample extension, as in the ClusterClass
// controller's tests.
var startExtension = sampleextensiontest.StartWithVariables

// createExtensionConfig creates an ExtensionConfig calling config, deleted
// when the test ends.
func createExtensionConfig(t *testing.T, name string, config runtimev1.ClientConfig, annotations map[string]string) {
	t.Helper()
	env.CreateExtensionConfig(t, &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations},
		Spec:       runtimev1.ExtensionConfigSpec{ClientConfig: config},
	})
}

func uniqueName(prefix string) string { return prefix + "-" + rand.String(6) }

func getExtensionConfig(t *testing.T, name string) *runtimev1.ExtensionConfig {
	t.Helper()
	env.Skip(t)
	ext := &runtimev1.ExtensionConfig{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Name: name}, ext); err != nil {
		t.Fatalf("get ExtensionConfig %s: %v", name, err)
	}
	return ext
}

func waitDiscovered(t *testing.T, name string, status metav1.ConditionStatus, messageParts ...string) *runtimev1.ExtensionConfig {
	t.Helper()
	var ext *runtimev1.ExtensionConfig
	polltest.Eventually(t, eventually, name+" Discovered="+string(status), func() (bool, string) {
		ext = getExtensionConfig(t, name)
		c := meta.FindStatusCondition(ext.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition)
		if c == nil {
			return false, "no Discovered condition"
		}
		if c.Status != status {
			return false, "Discovered=" + string(c.Status) + ": " + c.Message
		}
		if c.ObservedGeneration != ext.Generation {
			return false, fmt.Sprintf("Discovered observes generation %d of %d", c.ObservedGeneration, ext.Generation)
		}
		for _, part := range messageParts {
			if !strings.Contains(c.Message, part) {
				return false, "message " + c.Message + " lacks " + part
			}
		}
		return true, ""
	})
	return ext
}

func TestReconcile_DiscoversHandlersAndRegistersThem(t *testing.T) {
	h := startController(t, rtclient.Options{}, 0)
	ext := startExtension(t)
	name := uniqueName("discover")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}, nil)

	got := waitDiscovered(t, name, metav1.ConditionTrue)
	// Full names, as Cluster API's runtime client records them.
	want := map[string]string{
		"discover-variables." + name: "DiscoverVariables",
		"generate-patches." + name:   "GeneratePatches",
		"validate-topology." + name:  "ValidateTopology",
	}
	if len(got.Status.Handlers) != len(want) {
		t.Fatalf("status.handlers = %+v", got.Status.Handlers)
	}
	for _, handler := range got.Status.Handlers {
		if want[handler.Name] != handler.RequestHook.Hook || handler.RequestHook.APIVersion != hooksAPIVersion ||
			handler.TimeoutSeconds != 10 || handler.FailurePolicy != runtimev1.FailurePolicyFail {
			t.Errorf("unexpected handler %+v", handler)
		}
	}
	polltest.Eventually(t, eventually, "registry holds the handlers", func() (bool, string) {
		reg, ok := h.registry.Get("discover-variables." + name)
		return ok && reg.Hook.Hook == "DiscoverVariables" && reg.ClientConfig.URL == ext.URL, "not registered"
	})
	if c := meta.FindStatusCondition(got.Status.Conditions, clusterv1.PausedCondition); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("Paused condition = %+v, want False", c)
	}
}

func TestReconcile_ReDiscoveryWithTheSameAnswerWritesNothing(t *testing.T) {
	startController(t, rtclient.Options{}, 300*time.Millisecond)
	ext := startExtension(t)
	name := uniqueName("quiet")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}, nil)
	settled := waitDiscovered(t, name, metav1.ConditionTrue)

	// Reconciles of one object never overlap: once the extension has seen
	// three more Discovery calls, at least two re-discoveries have finished.
	base := ext.Server.Calls()["Discovery"]
	polltest.Eventually(t, eventually, "three more discoveries", func() (bool, string) {
		return ext.Server.Calls()["Discovery"] >= base+3, "waiting"
	})
	if now := getExtensionConfig(t, name); now.ResourceVersion != settled.ResourceVersion {
		t.Errorf("re-discovery of unchanged handlers wrote the object: resourceVersion %s -> %s", settled.ResourceVersion, now.ResourceVersion)
	}
}

func TestReconcile_BrokenExtensionsReportTheCauseWithoutHotLoopAndRecover(t *testing.T) {
	env.Skip(t)
	// A small body bound and a short discovery timeout keep the test fast.
	startController(t, rtclient.Options{MaxResponseBytes: 64 << 10, DiscoveryTimeout: 500 * time.Millisecond}, 0)
	closedURL := "https://127.0.0.1:1"
	_, otherCA, stopOther, err := sampleextension.StartTLS(sampleextension.New(sampleextension.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	stopOther()

	discoverVariables := runtimehooksv1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "DiscoverVariables"}
	cases := []struct {
		name    string
		breakIt func(*extension) runtimev1.ClientConfig
		heal    func(*extension) runtimev1.ClientConfig
		want    []string
	}{
		{
			name: "wrong-ca",
			breakIt: func(e *extension) runtimev1.ClientConfig {
				return runtimev1.ClientConfig{URL: e.URL, CABundle: otherCA}
			},
			heal: func(e *extension) runtimev1.ClientConfig { return runtimev1.ClientConfig{URL: e.URL, CABundle: e.CA} },
			want: []string{"certificate not signed by the CA bundle"},
		},
		{
			name: "unreachable",
			breakIt: func(e *extension) runtimev1.ClientConfig {
				return runtimev1.ClientConfig{URL: closedURL, CABundle: e.CA}
			},
			heal: func(e *extension) runtimev1.ClientConfig { return runtimev1.ClientConfig{URL: e.URL, CABundle: e.CA} },
			want: []string{"unreachable"},
		},
		{
			name: "timeout",
			breakIt: func(e *extension) runtimev1.ClientConfig {
				e.Server.SetFaults("Discovery", sampleextension.Faults{TimeoutRate: 1})
				return runtimev1.ClientConfig{URL: e.URL, CABundle: e.CA}
			},
			want: []string{"did not answer within 500ms"},
		},
		{
			name: "http-500",
			breakIt: func(e *extension) runtimev1.ClientConfig {
				e.Server.SetFaults("Discovery", sampleextension.Faults{ErrorRate: 1})
				return runtimev1.ClientConfig{URL: e.URL, CABundle: e.CA}
			},
			want: []string{"HTTP 500"},
		},
		{
			name: "not-json",
			breakIt: func(e *extension) runtimev1.ClientConfig {
				e.Server.SetFaults("Discovery", sampleextension.Faults{RawBody: []byte("<html>oops</html>")})
				return runtimev1.ClientConfig{URL: e.URL, CABundle: e.CA}
			},
			want: []string{"not a JSON object"},
		},
		{
			name: "oversized",
			breakIt: func(e *extension) runtimev1.ClientConfig {
				e.Server.SetFaults("Discovery", sampleextension.Faults{RawBody: []byte(strings.Repeat("x", 1024)), RawBodyRepeat: 100})
				return runtimev1.ClientConfig{URL: e.URL, CABundle: e.CA}
			},
			want: []string{"larger than 65536 bytes"},
		},
		{
			name: "dotted-name",
			breakIt: func(e *extension) runtimev1.ClientConfig {
				e.Server.SetHandlers([]runtimehooksv1.ExtensionHandler{{Name: "has.dot", RequestHook: discoverVariables}})
				return runtimev1.ClientConfig{URL: e.URL, CABundle: e.CA}
			},
			want: []string{`"has.dot"`, "must not contain a dot"},
		},
		{
			name: "unknown-hook",
			breakIt: func(e *extension) runtimev1.ClientConfig {
				e.Server.SetHandlers([]runtimehooksv1.ExtensionHandler{{Name: "coffee", RequestHook: runtimehooksv1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "MakeCoffee"}}})
				return runtimev1.ClientConfig{URL: e.URL, CABundle: e.CA}
			},
			want: []string{"unknown hook", "MakeCoffee"},
		},
	}

	names := map[string]string{}
	extensions := map[string]*extension{}
	for _, tc := range cases {
		e := startExtension(t)
		extensions[tc.name] = e
		names[tc.name] = uniqueName(tc.name)
		createExtensionConfig(t, names[tc.name], tc.breakIt(e), nil)
	}
	for _, tc := range cases {
		ext := waitDiscovered(t, names[tc.name], metav1.ConditionFalse, tc.want...)
		if c := meta.FindStatusCondition(ext.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition); c.Reason != runtimev1.ExtensionConfigNotDiscoveredReason {
			t.Errorf("%s: reason %q", tc.name, c.Reason)
		}
	}

	// No hot loop: backoff paces retries. Over two seconds an exponential
	// backoff from 5 ms makes a handful of calls; a hot loop makes thousands.
	before := map[string]int64{}
	for name, e := range extensions {
		before[name] = e.Server.Total()
	}
	polltest.Consistently(t, 2*time.Second, "retries backed off", func() (bool, string) {
		for name, e := range extensions {
			if extra := e.Server.Total() - before[name]; extra > 12 {
				return false, fmt.Sprintf("%s: %d discovery calls in under 2s", name, extra)
			}
		}
		return true, ""
	})

	for _, tc := range cases {
		e := extensions[tc.name]
		e.Server.ResetFaults()
		e.Server.SetHandlers(sampleextension.DefaultHandlers())
		if tc.heal != nil {
			ext := getExtensionConfig(t, names[tc.name])
			ext.Spec.ClientConfig = tc.heal(e)
			if err := env.Client.Update(context.Background(), ext); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range cases {
		ext := waitDiscovered(t, names[tc.name], metav1.ConditionTrue)
		if len(ext.Status.Handlers) != 3 {
			t.Errorf("%s: recovered with handlers %+v", tc.name, ext.Status.Handlers)
		}
	}
}

func TestReconcile_FailedRediscoveryKeepsTheLastGoodHandlers(t *testing.T) {
	h := startController(t, rtclient.Options{}, 300*time.Millisecond)
	ext := startExtension(t)
	name := uniqueName("keep")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}, nil)
	waitDiscovered(t, name, metav1.ConditionTrue)

	ext.Server.SetFaults("Discovery", sampleextension.Faults{ErrorRate: 1})
	got := waitDiscovered(t, name, metav1.ConditionFalse, "HTTP 500")
	if len(got.Status.Handlers) != 3 {
		t.Errorf("failed re-discovery wiped status.handlers: %+v", got.Status.Handlers)
	}
	if _, ok := h.registry.Get("discover-variables." + name); !ok {
		t.Error("failed re-discovery unregistered the handlers")
	}
}

// injectOnceTheSecretAppears creates a config whose CA Secret does not
// exist yet and checks the condition says so; then creates the Secret and
// checks that this wakes the config, which gets the CA and is discovered.
// It returns the extension and the Secret's namespace.
func injectOnceTheSecretAppears(t *testing.T, prefix string) (*extension, string) {
	t.Helper()
	ext := startExtension(t)
	ns := env.Namespace(t, nil)
	name := uniqueName(prefix)
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL},
		map[string]string{runtimev1.InjectCAFromSecretAnnotation: ns + "/extension-ca"})
	waitDiscovered(t, name, metav1.ConditionFalse, ns+"/extension-ca", "does not exist")

	if err := env.Client.Create(context.Background(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "extension-ca"},
		Data:       map[string][]byte{"ca.crt": ext.CA},
	}); err != nil {
		t.Fatal(err)
	}
	got := waitDiscovered(t, name, metav1.ConditionTrue)
	if string(got.Spec.ClientConfig.CABundle) != string(ext.CA) {
		t.Error("caBundle was not injected from the Secret")
	}
	return ext, ns
}

func TestReconcile_InjectsCAFromTheAnnotatedSecret(t *testing.T) {
	h := startController(t, rtclient.Options{}, 0)
	ext, _ := injectOnceTheSecretAppears(t, "inject")

	// Even at the highest verbosity, the CA never reaches the logs, in PEM
	// or base64 form.
	logs := h.logs.String()
	if !strings.Contains(logs, "injected caBundle") {
		t.Fatal("the verbose log lines were not captured; the check below would prove nothing")
	}
	pemBody := strings.Split(string(ext.CA), "\n")[1]
	for _, leak := range []string{"BEGIN CERTIFICATE", pemBody, base64.StdEncoding.EncodeToString(ext.CA)} {
		if strings.Contains(logs, leak) {
			for _, line := range strings.Split(logs, "\n") {
				if strings.Contains(line, leak) {
					t.Logf("leaking line: %.600s", line)
				}
			}
			t.Errorf("CA data in the logs: %.40q...", leak)
		}
	}
}

// In a manager whose cache sees only Secrets labelled with a cluster name,
// as Cluster API's does, the CA watch reads the separate Secret metadata
// cache it is given: creating the unlabelled Secret still wakes the config.
func TestReconcile_InjectsCAThroughASeparateSecretCache(t *testing.T) {
	clusterSecrets, err := labels.Parse(clusterv1.ClusterNameLabel)
	if err != nil {
		t.Fatal(err)
	}
	h := startControllerWith(t, rtclient.Options{}, 0, harnessOptions{
		cache:       ctrlcache.Options{ByObject: map[client.Object]ctrlcache.ByObject{&corev1.Secret{}: {Label: clusterSecrets}}},
		secretCache: true,
	})
	_, ns := injectOnceTheSecretAppears(t, "separate-cache")
	// The manager's own cache cannot see the Secret: without the separate
	// cache nothing would have woken the config.
	secrets := &metav1.PartialObjectMetadataList{}
	secrets.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("SecretList"))
	if err := h.mgr.GetCache().List(context.Background(), secrets, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(secrets.Items) != 0 {
		t.Errorf("the manager's cache sees %d unlabelled Secrets, want 0: the test proves nothing", len(secrets.Items))
	}
}

// A CA rotation through the annotated Secret costs one reconcile and one
// Discovery: the reconcile that writes the new caBundle discovers with it,
// and the spec change it writes wakes nobody again.
func TestReconcile_ACARotationCostsOneReconcileAndOneDiscovery(t *testing.T) {
	h := startController(t, rtclient.Options{}, 0)
	ext := startExtension(t)
	ns := env.Namespace(t, nil)
	name := uniqueName("rotate")
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "extension-ca"},
		Data:       map[string][]byte{"ca.crt": ext.CA},
	}
	if err := env.Client.Create(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL},
		map[string]string{runtimev1.InjectCAFromSecretAnnotation: ns + "/extension-ca"})
	waitDiscovered(t, name, metav1.ConditionTrue)
	reconciles := func() int {
		return strings.Count(h.logs.String(), `"msg":"Reconciling","controller":"extensionconfig","controllerGroup":"runtime.cluster.x-k8s.io","controllerKind":"ExtensionConfig","ExtensionConfig":{"name":"`+name+`"}`)
	}
	reconcilesBefore, discoveriesBefore := reconciles(), ext.Server.Total()
	if reconcilesBefore == 0 {
		t.Fatal("no reconcile of the config was logged; the count below would prove nothing")
	}

	// Rotate: the bundle grows by a CA the extension does not use, as
	// during a rollover.
	otherCA, _, _, err := sampleextension.SelfSignedCertificate([]string{"localhost"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	rotated := append(append([]byte{}, ext.CA...), otherCA...)
	secret.Data["ca.crt"] = rotated
	if err := env.Client.Update(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	polltest.Eventually(t, eventually, "the rotated caBundle injected and discovered", func() (bool, string) {
		got := getExtensionConfig(t, name)
		c := meta.FindStatusCondition(got.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition)
		return string(got.Spec.ClientConfig.CABundle) == string(rotated) && ext.Server.Total() > discoveriesBefore &&
			c != nil && c.Status == metav1.ConditionTrue, fmt.Sprintf("Discovered %v", c)
	})

	// A reconcile the injection's own write would cause is queued before
	// the events of anything created after it, and the controller
	// reconciles one config at a time: once a config created now is
	// discovered, that reconcile would have run.
	afterQueuedEvents(t)

	if n := reconciles() - reconcilesBefore; n != 1 {
		t.Errorf("the rotation cost %d reconciles, want 1", n)
	}
	if n := ext.Server.Total() - discoveriesBefore; n != 1 {
		t.Errorf("the rotation cost %d Discovery calls, want 1", n)
	}
}

// With a watch filter, as Cluster API's --watch-filter, only configs
// labelled with its value are discovered.
func TestReconcile_WatchFilterLeavesOtherConfigsAlone(t *testing.T) {
	env.Skip(t)
	startControllerWith(t, rtclient.Options{}, 0, harnessOptions{watchFilter: "shard-a"})
	ext := startExtension(t)
	theirs := uniqueName("theirs")
	createExtensionConfig(t, theirs, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}, nil)
	// Created after theirs: its event comes later, and one worker takes
	// them in order.
	mine := uniqueName("mine")
	createExtensionConfig(t, mine, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}, nil)
	labelled := getExtensionConfig(t, mine)
	labelled.Labels = map[string]string{clusterv1.WatchLabel: "shard-a"}
	if err := env.Client.Update(context.Background(), labelled); err != nil {
		t.Fatal(err)
	}
	waitDiscovered(t, mine, metav1.ConditionTrue)
	if got := getExtensionConfig(t, theirs); len(got.Status.Conditions) != 0 || len(got.Status.Handlers) != 0 {
		t.Errorf("an unlabelled config was reconciled: %+v", got.Status)
	}
}

func TestReconcile_PausedConfigIsNotDiscovered(t *testing.T) {
	env.Skip(t)
	startController(t, rtclient.Options{}, 0)
	ext := startExtension(t)
	name := uniqueName("paused")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA},
		map[string]string{clusterv1.PausedAnnotation: ""})

	polltest.Eventually(t, eventually, "Paused=True", func() (bool, string) {
		c := meta.FindStatusCondition(getExtensionConfig(t, name).Status.Conditions, clusterv1.PausedCondition)
		return c != nil && c.Status == metav1.ConditionTrue, "not paused yet"
	})
	if calls := ext.Server.Total(); calls != 0 {
		t.Errorf("a paused config called its extension %d times", calls)
	}

	paused := getExtensionConfig(t, name)
	delete(paused.Annotations, clusterv1.PausedAnnotation)
	if err := env.Client.Update(context.Background(), paused); err != nil {
		t.Fatal(err)
	}
	waitDiscovered(t, name, metav1.ConditionTrue)
}

func TestReconcile_DeleteUnregistersHandlers(t *testing.T) {
	env.Skip(t)
	h := startController(t, rtclient.Options{}, 0)
	ext := startExtension(t)
	name := uniqueName("delete")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}, nil)
	waitDiscovered(t, name, metav1.ConditionTrue)
	polltest.Eventually(t, eventually, "registered", func() (bool, string) { return len(h.registry.ForConfig(name)) == 3, "not yet" })

	if err := env.Client.Delete(context.Background(), getExtensionConfig(t, name)); err != nil {
		t.Fatal(err)
	}
	polltest.Eventually(t, eventually, "unregistered", func() (bool, string) { return len(h.registry.ForConfig(name)) == 0, "still registered" })
}

func TestWarmup_RegistersRecordedHandlersWhileTheExtensionIsDown(t *testing.T) {
	name := uniqueName("warm")
	// Recorded by an earlier run; the extension is gone now.
	env.RecordedExtensionConfig(t, name, nil, "discover-variables")

	h := startController(t, rtclient.Options{DiscoveryTimeout: time.Second}, 0)
	polltest.Eventually(t, eventually, "registry ready", func() (bool, string) { return h.registry.Gate().IsOpen(registry.WarmedUp), "warming up" })
	if _, ok := h.registry.Get("discover-variables." + name); !ok {
		t.Fatal("warm-up did not register the recorded handler")
	}
	// The background discovery fails, and nothing is lost or crashes.
	got := waitDiscovered(t, name, metav1.ConditionFalse, "unreachable")
	if len(got.Status.Handlers) != 1 {
		t.Errorf("failed discovery changed the recorded handlers: %+v", got.Status.Handlers)
	}
	if _, ok := h.registry.Get("discover-variables." + name); !ok {
		t.Error("failed discovery unregistered the recorded handler")
	}
}

// Earlier versions of this controller recorded short names; an upgrade keeps
// every registration, and a name that cannot be this config's is skipped,
// never registered under a wrong name.
func TestWarmup_ReadsShortNamesOfEarlierVersionsAndSkipsForeignNames(t *testing.T) {
	name := uniqueName("legacy")
	ext := env.RecordedExtensionConfig(t, name, nil, "discover-variables", "generate-patches")
	ext.Status.Handlers[0].Name = "discover-variables"
	ext.Status.Handlers[1].Name = "generate-patches.someone-else"
	if err := env.Client.Status().Update(context.Background(), ext); err != nil {
		t.Fatal(err)
	}

	h := startController(t, rtclient.Options{DiscoveryTimeout: time.Second}, 0)
	polltest.Eventually(t, eventually, "registry ready", func() (bool, string) { return h.registry.Gate().IsOpen(registry.WarmedUp), "warming up" })
	if _, ok := h.registry.Get("discover-variables." + name); !ok {
		t.Error("warm-up did not register the short recorded name under its full name")
	}
	if got := h.registry.ForConfig(name); len(got) != 1 {
		t.Errorf("registered %+v, want only discover-variables.%s", got, name)
	}
	for _, wrong := range []string{"generate-patches.someone-else", "generate-patches.someone-else." + name} {
		if _, ok := h.registry.Get(wrong); ok {
			t.Errorf("%s is registered", wrong)
		}
	}
}

// Without a cache that sees every Secret the CA watch would silently miss
// CA Secret changes in a manager like Cluster API's, whose own cache sees
// only Secrets labelled with a cluster name: setup refuses rather than
// fall back to the manager's cache.
func TestSetupWithManager_RefusesToWatchCASecretsWithoutASecretCache(t *testing.T) {
	env.Skip(t)
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Registry: registry.New(),
		ResponseCache: &maxAges{got: map[string]time.Duration{}}}
	err = r.SetupWithManager(context.Background(), mgr, controller.Options{SkipNameValidation: ptr.To(true)})
	if err == nil || !strings.Contains(err.Error(), "SecretMetadata") {
		t.Errorf("SetupWithManager without SecretMetadata = %v, want an error naming it", err)
	}
}
