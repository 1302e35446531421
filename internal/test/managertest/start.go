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

package managertest

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/cluster-api/feature"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/shutdownhang"
)

// TurnOnRuntimeSDK turns on Cluster API's ClusterTopology and RuntimeSDK
// feature gates, under which the drop-in runs our controllers, for the
// whole test binary: call it from TestMain, as Cluster API's own suites do.
// A test that needs a gate off sets it with featuregatetesting.
func TurnOnRuntimeSDK() error {
	return feature.MutableGates.SetFromMap(map[string]bool{
		string(feature.ClusterTopology): true, string(feature.RuntimeSDK): true,
	})
}

// Options are what a test sets for StartControllers.
type Options struct {
	Controllers controllers.Options
	// Logger, when set, is the manager's logger.
	Logger logr.Logger
	// MetricsBindAddress serves metrics over plain HTTP; empty is off.
	MetricsBindAddress string
}

// StartControllers runs our ExtensionConfig and ClusterClass controllers,
// their registry, runtime client and caches, as controllers.AddToManager
// wires them for the drop-in, on a manager of their own until the test
// ends, and returns the manager.
func StartControllers(t testing.TB, cfg *rest.Config, opts Options) ctrl.Manager {
	t.Helper()
	if opts.MetricsBindAddress == "" {
		opts.MetricsBindAddress = "0"
	}
	mgrOpts := ctrl.Options{
		Scheme:                 scheme.New(),
		Metrics:                metricsserver.Options{BindAddress: opts.MetricsBindAddress},
		HealthProbeBindAddress: "0",
		// Each test runs a manager of its own in one process, under the
		// same controller names.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	}
	if opts.Logger.GetSink() != nil {
		mgrOpts.Logger = opts.Logger
	}
	mgr, err := ctrl.NewManager(cfg, mgrOpts)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Controllers.SecretMetadata == nil {
		// The test's manager caches every Secret.
		opts.Controllers.SecretMetadata = mgr.GetCache()
	}
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := controllers.AddToManager(ctx, mgr, opts.Controllers); err != nil {
		cancel()
		t.Fatal(err)
	}
	Run(t, ctx, cancel, mgr)
	return mgr
}

// Run starts mgr with ctx until the test ends, when cancel stops it; a
// manager that ends with an error fails the test, unless it is the
// priority queue's known shutdown hang (package shutdownhang).
func Run(t testing.TB, ctx context.Context, cancel context.CancelFunc, mgr ctrl.Manager) {
	t.Helper()
	done := make(chan error, 1)
	hangs := shutdownhang.Watch()
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		hangs.Check(t, <-done)
	})
}
