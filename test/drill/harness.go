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

package drill

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
)

// Env is where drills run.
type Env struct {
	// Config reaches the control plane as cluster-admin.
	Config *rest.Config
	// Kubeconfig is the same as a file, for the controller process.
	Kubeconfig string
	// Binary is the drop-in core manager under drill (bin/core-manager).
	// The control plane must serve Cluster API's CRDs.
	Binary string
	// LogDir receives one controller log per drill.
	LogDir string
	// Progress, when set, receives one line per step.
	Progress io.Writer
}

func (e Env) progress(format string, args ...any) {
	if e.Progress != nil {
		fmt.Fprintf(e.Progress, format+"\n", args...)
	}
}

// harness is one drill's world: its objects, the controller process, the
// guard watching statuses and the samples taken so far.
type harness struct {
	env        Env
	name       string
	client     client.Client
	fixture    *fixture
	controller *Controller
	guard      *guard
	started    time.Time

	mu      sync.Mutex
	samples []Sample
}

// setUp creates the namespaces and ExtensionConfigs, starts the guard and
// the controller, and waits until every handler is registered. The
// ClusterClasses are left to the drill, which decides when they appear.
func setUp(ctx context.Context, env Env, name string, fo fixtureOptions, args []string, good ...[]clusterv1.ClusterClassVariable) (*harness, error) {
	h := &harness{env: env, name: name, started: time.Now()}
	c, err := client.New(env.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, err
	}
	h.client = c
	fo.prefix = name
	if h.fixture, err = newFixture(fo); err != nil {
		return nil, err
	}
	if err := h.fixture.createConfigs(ctx, c); err != nil {
		h.tearDown(ctx)
		return nil, err
	}
	if h.guard, err = startGuard(ctx, env.Config, good...); err != nil {
		h.tearDown(ctx)
		return nil, err
	}
	// The drills measure behaviour under faults, not client-side
	// throttling: the same allowance as the load tool's driver.
	args = append([]string{"--kube-api-qps", "500", "--kube-api-burst", "1000"}, args...)
	h.controller, err = StartDropIn(ctx, ControllerOptions{
		Binary: env.Binary, Kubeconfig: env.Kubeconfig, Args: args,
		LogPath: filepath.Join(env.LogDir, name+"-controller.log"),
	})
	if err != nil {
		h.tearDown(ctx)
		return nil, err
	}
	handlers := int64(len(h.fixture.extensions) * 3)
	if err := h.poll(ctx, 2*time.Minute, "every handler registered", func(s Sample) bool { return s.RegisteredHandlers == handlers }); err != nil {
		h.tearDown(ctx)
		return nil, err
	}
	env.progress("%s: %d ExtensionConfigs discovered, controller pid %d", name, len(h.fixture.extensions), h.controller.PID())
	return h, nil
}

// tearDown stops the controller and the extensions and deletes the drill's
// objects, so the next drill on the same control plane starts clean.
func (h *harness) tearDown(ctx context.Context) {
	if h.controller != nil {
		h.controller.Stop()
	}
	if h.fixture == nil {
		return
	}
	h.fixture.stop()
	for _, ns := range h.fixture.namespaces {
		_ = h.client.DeleteAllOf(ctx, &clusterv1.ClusterClass{}, client.InNamespace(ns))
	}
	for _, e := range h.fixture.extensions {
		_ = h.client.Delete(ctx, &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: e.name}})
	}
}

// sample reads the controller once and records the reading. A controller
// that has exited is reported as an error.
func (h *harness) sample(ctx context.Context) (Sample, error) {
	if err := h.exitError(); err != nil {
		return Sample{}, err
	}
	s, err := h.controller.Sample(ctx)
	if err != nil {
		return s, err
	}
	s.At = time.Since(h.started)
	h.mu.Lock()
	h.samples = append(h.samples, s)
	h.mu.Unlock()
	return s, nil
}

// sampleEvery samples until ctx ends; it returns when sampling has stopped.
func (h *harness) sampleEvery(ctx context.Context, every time.Duration) (stop func()) {
	return polltest.Every(ctx, every, func(ctx context.Context) { _, _ = h.sample(ctx) })
}

// poll samples until done holds or the timeout passes.
func (h *harness) poll(ctx context.Context, timeout time.Duration, what string, done func(Sample) bool) error {
	deadline := time.Now().Add(timeout)
	var last Sample
	for time.Now().Before(deadline) {
		s, err := h.controller.Sample(ctx)
		if err == nil && done(s) {
			return nil
		}
		if err := h.exitError(); err != nil {
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		last = s
		if err := pause(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
	return fmt.Errorf("no %s after %s (last sample %+v)", what, timeout, last)
}

// exitError reports the controller's exit, once it has exited.
func (h *harness) exitError() error {
	if exited, err := h.controller.Exited(); exited {
		return fmt.Errorf("controller exited: %v", err)
	}
	return nil
}

// pause waits d, or less when ctx ends first, which it reports.
func pause(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// allSamples returns the samples taken so far.
func (h *harness) allSamples() []Sample {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Sample(nil), h.samples...)
}

// expectEverywhere selects every ClusterClass of the fixture whose config
// admits its namespace and expects it to publish vars.
func (h *harness) expectEverywhere(vars []clusterv1.ClusterClassVariable) func(key types.NamespacedName) ([]string, bool) {
	names := namesOf(vars)
	index := map[types.NamespacedName]int{}
	for i, key := range h.fixture.classes {
		index[key] = i
	}
	return func(key types.NamespacedName) ([]string, bool) {
		i, ok := index[key]
		if !ok || !h.fixture.admitted(i) {
			return nil, false
		}
		return names, true
	}
}
