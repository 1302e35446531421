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

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/cli"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/logcap"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/observe"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

const name = "runtime-sdk-controller"

func main() {
	ctx, stop := cli.ShutdownContext()
	defer stop()
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "who-uses" {
		os.Exit(runWhoUses(ctx, args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(run(ctx, args, os.Stderr))
}

// options are the command line of observe mode.
type options struct {
	manager    observe.ManagerOptions
	kubeconfig string
	// kubeAPIQPS and kubeAPIBurst limit the manager's requests to
	// kube-apiserver, whatever the configuration came from.
	kubeAPIQPS   float64
	kubeAPIBurst int
	zap          zap.Options
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{zap: zap.Options{Development: false}}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.manager.MetricsBindAddress, "metrics-bind-address", ":8443", "Address the Prometheus metrics endpoint binds to; 0 disables it.")
	fs.BoolVar(&o.manager.MetricsSecure, "metrics-secure", true, "Serve metrics over HTTPS to callers kube-apiserver authenticates and authorises for a get of /metrics; false serves plain HTTP to anyone.")
	fs.StringVar(&o.manager.MetricsCertDir, "metrics-cert-dir", "", "Directory with tls.crt and tls.key for --metrics-secure, read again when they change; empty serves a self-signed certificate.")
	fs.StringVar(&o.manager.HealthProbeBindAddress, "health-probe-bind-address", ":8081", "Address the /healthz and /readyz probes bind to; 0 disables them.")
	// Cluster API v1.14.2's core manager's defaults (its 20 and 30 are for
	// clients of workload clusters); a kubeconfig alone would leave
	// client-go's 5 and 10.
	fs.Float64Var(&o.kubeAPIQPS, "kube-api-qps", userfacing.DefaultKubeAPIQPS, "Requests per second the manager may send to kube-apiserver.")
	fs.IntVar(&o.kubeAPIBurst, "kube-api-burst", userfacing.DefaultKubeAPIBurst, "Requests the manager may send to kube-apiserver in a burst above --kube-api-qps.")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "Path to a kubeconfig; defaults to $KUBECONFIG, then the in-cluster configuration, then ~/.kube/config.")
	o.zap.BindFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [flags]\n       %s who-uses [flags] extensionconfig NAME | handler HANDLER.EXTENSIONCONFIG\n\n"+
			"Observe mode, beside Cluster API's own manager: watch ExtensionConfigs and export, per event, how many\n"+
			"ClusterClass reconciles Cluster API's scan causes and how many the index would. It writes nothing.\n\nFlags:\n", name, name)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.kubeAPIQPS <= 0 || o.kubeAPIBurst < 1 {
		return nil, fmt.Errorf("--kube-api-qps must be above 0 and --kube-api-burst at least 1, got %v and %d", o.kubeAPIQPS, o.kubeAPIBurst)
	}
	return o, nil
}

// run is the whole program; it returns the exit code. Every failure is one
// line on stderr, never a stack trace.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	// Capped so that no --zap-log-level can enable client-go's body dumps,
	// which would log caBundles and Secret data.
	ctrl.SetLogger(logcap.Cap(zap.New(zap.UseFlagOptions(&o.zap), zap.WriteTo(stderr)), logcap.MaxVerbosity))

	if err := serve(ctx, o); err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", name, cli.OneLine(err))
		return 1
	}
	return 0
}

func serve(ctx context.Context, o *options) error {
	restConfig, err := loadKubeconfig(o.kubeconfig)
	if err != nil {
		return err
	}
	restConfig.QPS, restConfig.Burst = float32(o.kubeAPIQPS), o.kubeAPIBurst

	mgr, err := observe.NewManager(ctx, restConfig, o.manager)
	if err != nil {
		return err
	}
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	return nil
}

// loadKubeconfig honours --kubeconfig first, then controller-runtime's usual
// order ($KUBECONFIG, in-cluster, ~/.kube/config).
func loadKubeconfig(path string) (*rest.Config, error) {
	if path == "" {
		cfg, err := config.GetConfig()
		if err != nil {
			return nil, fmt.Errorf("no cluster to run against (pass --kubeconfig or set KUBECONFIG): %w", err)
		}
		return cfg, nil
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	return cfg, nil
}
