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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

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

// freshRegistration is what a freshly started manager registers for a
// config: the handlers its status records, under its spec as it is.
func freshRegistration(t *testing.T, name string) []registry.Handler {
	t.Helper()
	fresh := registry.New()
	if _, _, err := fresh.Register(getExtensionConfig(t, name)); err != nil {
		t.Fatal(err)
	}
	return fresh.ForConfig(name)
}

// While an extension's Discovery fails, a change of its settings, its CA or
// its URL still takes effect: the registry holds the recorded handlers under
// the new spec, as a fresh start registers them, and every handler's
// fingerprint changes, which voids its cached answers in both caches.
func TestReconcile_SpecChangesTakeEffectWhileDiscoveryFails(t *testing.T) {
	h := startController(t, rtclient.Options{}, 0)
	ext := startExtension(t)
	name := uniqueName("failing")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}, nil)
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
	}{
		{"settings", func(e *runtimev1.ExtensionConfig) { e.Spec.Settings = map[string]string{"tier": "gold"} }, "Discovery failed"},
		{"CA", func(e *runtimev1.ExtensionConfig) { e.Spec.ClientConfig.CABundle = otherCA }, "certificate"},
		{"URL", func(e *runtimev1.ExtensionConfig) { e.Spec.ClientConfig.URL = sampleextensiontest.UnreachableURL(t) }, "Discovery failed"},
	}
	for _, step := range steps {
		changesBefore := log.total()
		updateExtensionConfig(t, name, step.change)
		polltest.Eventually(t, eventually, "the "+step.name+" change registered while Discovery fails", func() (bool, string) {
			want, got := freshRegistration(t, name), h.registry.ForConfig(name)
			if len(want) == 0 {
				return false, "the config records no handlers"
			}
			if !reflect.DeepEqual(got, want) {
				return false, fmt.Sprintf("registered %+v, a fresh start registers %+v", got, want)
			}
			return true, ""
		})
		waitDiscovered(t, name, metav1.ConditionFalse, step.failure)
		if n := log.total() - changesBefore; n != len(h.registry.ForConfig(name)) {
			t.Errorf("the %s change told the caches of %d changed handlers, want all %d", step.name, n, len(h.registry.ForConfig(name)))
		}
	}
	if n := len(getExtensionConfig(t, name).Status.Handlers); n != 3 {
		t.Errorf("failed Discovery left %d recorded handlers, want the 3 it last found", n)
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
