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
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// maxAges records what the controller tells the response cache.
type maxAges struct {
	mu  sync.Mutex
	got map[string]time.Duration
}

func (m *maxAges) SetMaxAge(config string, maxAge time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.got[config] = maxAge
}

func (m *maxAges) of(config string) (time.Duration, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.got[config]
	return d, ok
}

// updateExtensionConfig applies change to the stored config.
func updateExtensionConfig(t *testing.T, name string, change func(*runtimev1.ExtensionConfig)) {
	t.Helper()
	env.Skip(t)
	ext := getExtensionConfig(t, name)
	before := ext.DeepCopy()
	change(ext)
	if err := env.Client.Patch(context.Background(), ext, client.MergeFrom(before)); err != nil {
		t.Fatalf("update ExtensionConfig %s: %v", name, err)
	}
}

// afterQueuedEvents returns once every event queued before it has been
// reconciled: the controller takes one config at a time, in order, so a
// config created now and seen discovered comes after them.
func afterQueuedEvents(t *testing.T) {
	t.Helper()
	barrier := startExtension(t)
	name := uniqueName("barrier")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: barrier.URL, CABundle: barrier.CA}, nil)
	waitDiscovered(t, name, metav1.ConditionTrue)
}

func TestReconcile_UnpausingDiscoversAgain(t *testing.T) {
	startController(t, rtclient.Options{}, 0)
	ext := startExtension(t)
	name := uniqueName("unpause")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}, nil)
	waitDiscovered(t, name, metav1.ConditionTrue)
	before := ext.Server.Calls()["Discovery"]

	updateExtensionConfig(t, name, func(e *runtimev1.ExtensionConfig) {
		e.Annotations = map[string]string{clusterv1.PausedAnnotation: ""}
	})
	polltest.Eventually(t, eventually, "Paused=True", func() (bool, string) {
		c := meta.FindStatusCondition(getExtensionConfig(t, name).Status.Conditions, clusterv1.PausedCondition)
		return c != nil && c.Status == metav1.ConditionTrue, fmt.Sprintf("Paused %v", c)
	})
	updateExtensionConfig(t, name, func(e *runtimev1.ExtensionConfig) { e.Annotations = nil })
	polltest.Eventually(t, eventually, "unpausing discovers", func() (bool, string) {
		n := ext.Server.Calls()["Discovery"] - before
		return n == 1, fmt.Sprintf("%d Discovery calls", n)
	})
}

func TestReconcile_TheResponseCacheAnnotationIsReported(t *testing.T) {
	policy := &maxAges{got: map[string]time.Duration{}}
	startControllerWith(t, rtclient.Options{}, 0, harnessOptions{responseCache: policy})
	ext := startExtension(t)
	name := uniqueName("cached")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}, nil)
	waitDiscovered(t, name, metav1.ConditionTrue)
	if c := meta.FindStatusCondition(getExtensionConfig(t, name).Status.Conditions, userfacing.ResponsesCachedCondition); c != nil {
		t.Fatalf("a config without the annotation has %s: %+v", userfacing.ResponsesCachedCondition, c)
	}
	steps := []struct {
		name       string
		value      *string
		wantStatus metav1.ConditionStatus
		wantAge    time.Duration
		wantParts  []string
	}{
		{"a max age", ptrTo("10m"), metav1.ConditionTrue, 10 * time.Minute, []string{"10m0s", userfacing.ResponseCacheMaxAgeAnnotation}},
		{"a value that does not parse", ptrTo("ten minutes"), metav1.ConditionFalse, 0, []string{userfacing.ResponseCacheMaxAgeAnnotation, `"ten minutes"`}},
		{"removed", nil, "", 0, nil},
		{"a max age again", ptrTo("5m"), metav1.ConditionTrue, 5 * time.Minute, []string{"5m0s"}},
		// Last: unpausing would discover again.
		{"paused", ptrTo("5m"), metav1.ConditionFalse, 0, []string{"paused", "not cached"}},
	}
	for _, step := range steps {
		updateExtensionConfig(t, name, func(e *runtimev1.ExtensionConfig) {
			e.Annotations = map[string]string{}
			if step.value != nil {
				e.Annotations[userfacing.ResponseCacheMaxAgeAnnotation] = *step.value
			}
			if step.name == "paused" {
				e.Annotations[clusterv1.PausedAnnotation] = ""
			}
		})
		polltest.Eventually(t, eventually, step.name+" reported", func() (bool, string) {
			c := meta.FindStatusCondition(getExtensionConfig(t, name).Status.Conditions, userfacing.ResponsesCachedCondition)
			if step.wantStatus == "" {
				return c == nil, fmt.Sprintf("condition %+v", c)
			}
			if c == nil || c.Status != step.wantStatus {
				return false, fmt.Sprintf("condition %+v", c)
			}
			for _, part := range step.wantParts {
				if !strings.Contains(c.Message, part) {
					return false, "message " + c.Message + " lacks " + part
				}
			}
			return true, ""
		})
		if got, ok := policy.of(name); !ok || got != step.wantAge {
			t.Errorf("%s: the cache was told %v (told: %v), want %v", step.name, got, ok, step.wantAge)
		}
	}
}

func ptrTo(s string) *string { return &s }
