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

func TestReconcile_LabelsAnnotationsAndSettingsRunNoDiscovery(t *testing.T) {
	h := startController(t, rtclient.Options{}, 0)
	ext := startExtension(t)
	name := uniqueName("annotated")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}, nil)
	waitDiscovered(t, name, metav1.ConditionTrue)
	before := ext.Server.Calls()["Discovery"]
	if before == 0 {
		t.Fatal("no Discovery counted; the count below would prove nothing")
	}

	updateExtensionConfig(t, name, func(e *runtimev1.ExtensionConfig) {
		e.Labels = map[string]string{"team": "a"}
		e.Annotations = map[string]string{"example.com/note": "bulk edit"}
	})
	// Settings are not sent with Discovery: they take effect in the
	// registration without one.
	updateExtensionConfig(t, name, func(e *runtimev1.ExtensionConfig) { e.Spec.Settings = map[string]string{"k": "v"} })
	polltest.Eventually(t, eventually, "the new settings registered", func() (bool, string) {
		handlers := h.registry.ForConfig(name)
		for _, handler := range handlers {
			if handler.Settings["k"] != "v" {
				return false, fmt.Sprintf("%s has settings %v", handler.Name, handler.Settings)
			}
		}
		return len(handlers) > 0, "no handlers"
	})
	afterQueuedEvents(t)
	if n := ext.Server.Calls()["Discovery"] - before; n != 0 {
		t.Errorf("label, annotation and settings updates ran %d Discovery calls, want 0", n)
	}
	if c := meta.FindStatusCondition(getExtensionConfig(t, name).Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition); c == nil ||
		c.Status != metav1.ConditionTrue || c.ObservedGeneration != getExtensionConfig(t, name).Generation {
		t.Errorf("Discovered %+v, want True at the settings' generation, as a Discovery with the same answer writes it", c)
	}

	// The rediscover annotation asks for one at once.
	updateExtensionConfig(t, name, func(e *runtimev1.ExtensionConfig) {
		e.Annotations = map[string]string{RediscoverAnnotation: "handlers changed"}
	})
	polltest.Eventually(t, eventually, "the rediscover annotation discovers", func() (bool, string) {
		n := ext.Server.Calls()["Discovery"] - before
		return n == 1, fmt.Sprintf("%d Discovery calls", n)
	})
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

func TestReconcile_TheResponseCacheAnnotationIsReportedWithoutDiscovery(t *testing.T) {
	policy := &maxAges{got: map[string]time.Duration{}}
	startControllerWith(t, rtclient.Options{}, 0, harnessOptions{responseCache: policy})
	ext := startExtension(t)
	name := uniqueName("cached")
	createExtensionConfig(t, name, runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}, nil)
	waitDiscovered(t, name, metav1.ConditionTrue)
	if c := meta.FindStatusCondition(getExtensionConfig(t, name).Status.Conditions, ResponsesCachedCondition); c != nil {
		t.Fatalf("a config without the annotation has %s: %+v", ResponsesCachedCondition, c)
	}
	before := ext.Server.Calls()["Discovery"]

	steps := []struct {
		name       string
		value      *string
		wantStatus metav1.ConditionStatus
		wantAge    time.Duration
		wantParts  []string
	}{
		{"a max age", ptrTo("10m"), metav1.ConditionTrue, 10 * time.Minute, []string{"10m0s", ResponseCacheMaxAgeAnnotation}},
		{"a value that does not parse", ptrTo("ten minutes"), metav1.ConditionFalse, 0, []string{ResponseCacheMaxAgeAnnotation, `"ten minutes"`}},
		{"removed", nil, "", 0, nil},
		{"a max age again", ptrTo("5m"), metav1.ConditionTrue, 5 * time.Minute, []string{"5m0s"}},
		// Last: unpausing would discover again.
		{"paused", ptrTo("5m"), metav1.ConditionFalse, 0, []string{"paused", "not cached"}},
	}
	for _, step := range steps {
		updateExtensionConfig(t, name, func(e *runtimev1.ExtensionConfig) {
			e.Annotations = map[string]string{}
			if step.value != nil {
				e.Annotations[ResponseCacheMaxAgeAnnotation] = *step.value
			}
			if step.name == "paused" {
				e.Annotations[clusterv1.PausedAnnotation] = ""
			}
		})
		polltest.Eventually(t, eventually, step.name+" reported", func() (bool, string) {
			c := meta.FindStatusCondition(getExtensionConfig(t, name).Status.Conditions, ResponsesCachedCondition)
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
	afterQueuedEvents(t)
	if n := ext.Server.Calls()["Discovery"] - before; n != 0 {
		t.Errorf("the annotation's changes ran %d Discovery calls, want 0", n)
	}
}

func ptrTo(s string) *string { return &s }

func TestReconciledAnnotationChanged(t *testing.T) {
	with := func(annotations map[string]string) *runtimev1.ExtensionConfig {
		return &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Annotations: annotations}}
	}
	tests := []struct {
		name     string
		old, new map[string]string
		want     bool
	}{
		{"another annotation", nil, map[string]string{"example.com/x": "1"}, false},
		{"another annotation's value", map[string]string{"example.com/x": "1"}, map[string]string{"example.com/x": "2"}, false},
		{"the CA annotation added", nil, map[string]string{runtimev1.InjectCAFromSecretAnnotation: "ns/ca"}, true},
		{"the CA annotation moved", map[string]string{runtimev1.InjectCAFromSecretAnnotation: "ns/a"}, map[string]string{runtimev1.InjectCAFromSecretAnnotation: "ns/b"}, true},
		{"paused", nil, map[string]string{clusterv1.PausedAnnotation: ""}, true},
		{"unpaused", map[string]string{clusterv1.PausedAnnotation: ""}, nil, true},
		{"the cache's max age", map[string]string{ResponseCacheMaxAgeAnnotation: "1m"}, map[string]string{ResponseCacheMaxAgeAnnotation: "2m"}, true},
		{"rediscover", map[string]string{RediscoverAnnotation: "1"}, map[string]string{RediscoverAnnotation: "2"}, true},
		{"unchanged beside another", map[string]string{clusterv1.PausedAnnotation: ""}, map[string]string{clusterv1.PausedAnnotation: "", "x": "y"}, false},
	}
	for _, tt := range tests {
		if got := reconciledAnnotationChanged(with(tt.old), with(tt.new)); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
