package standalonetest

import (
	"context"
	"testing"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/standalone"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/shutdownhang"
)

// Start builds the manager with opts, with its probe endpoints off and its
// metrics endpoint off unless opts bind it, and runs it until the test ends;
// a manager that ends with an error fails the test.
func Start(t testing.TB, config *rest.Config, opts standalone.Options) ctrl.Manager {
	t.Helper()
	if opts.MetricsBindAddress == "" {
		opts.MetricsBindAddress = "0"
	}
	opts.HealthProbeBindAddress = "0"
	opts.SkipNameValidation = true
	ctx, cancel := context.WithCancel(context.Background())
	mgr, err := standalone.New(ctx, config, opts)
	if err != nil {
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
