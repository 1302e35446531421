package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/cli"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/extensionconfig"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/logcap"
	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/variablescache"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/standalone"
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

// options are the command line of the binary.
type options struct {
	manager    standalone.Options
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
	fs.BoolVar(&o.manager.LeaderElection, "leader-elect", false, "Elect a leader so that only one instance reconciles at a time.")
	fs.StringVar(&o.manager.LeaderElectionNamespace, "leader-election-namespace", "", "Namespace of the leader election Lease (required out of cluster with --leader-elect).")
	fs.DurationVar(&o.manager.LeaseDuration, "leader-election-lease-duration", 15*time.Second, "How long a non-leader waits before it may take over the Lease.")
	fs.DurationVar(&o.manager.RenewDeadline, "leader-election-renew-deadline", 10*time.Second, "How long the leader keeps trying to renew before it gives up leadership.")
	fs.DurationVar(&o.manager.RetryPeriod, "leader-election-retry-period", 2*time.Second, "How often leader election is retried.")
	fs.DurationVar(&o.manager.Controllers.RediscoveryInterval, "rediscovery-interval", extensionconfig.DefaultRediscoveryInterval, "How often a discovered ExtensionConfig is discovered again.")
	fs.DurationVar(&o.manager.Controllers.RuntimeClient.DiscoveryTimeout, "discovery-timeout", rtclient.DefaultTimeout, "Timeout of a Discovery call.")
	fs.Int64Var(&o.manager.Controllers.RuntimeClient.MaxResponseBytes, "max-response-bytes", rtclient.DefaultMaxResponseBytes, "Largest response body accepted from a Runtime Extension.")
	fs.StringVar(&o.manager.Controllers.RuntimeClient.ClientCertFile, "runtime-client-cert-file", "", "Client certificate presented to Runtime Extensions (optional, with --runtime-client-key-file).")
	fs.StringVar(&o.manager.Controllers.RuntimeClient.ClientKeyFile, "runtime-client-key-file", "", "Key of --runtime-client-cert-file.")
	fs.BoolVar(&o.manager.ReadOnly, "read-only", false, "Observe mode: discover and write nothing; export how many ClusterClass reconciles each ExtensionConfig event costs with Cluster API's scan and with the index.")
	fs.IntVar(&o.manager.Controllers.ClusterClassConcurrency, "clusterclass-concurrency", 10, "How many ClusterClasses reconcile at once.")
	fs.DurationVar(&o.manager.Controllers.VariablesCacheMaxAge, "variables-cache-max-age", 10*time.Minute, "Longest time a DiscoverVariables answer is reused while its handler's registration is unchanged; 0 keeps it until the registration changes.")
	// The default holds every answer ClusterClasses still use with room to
	// spare (see variablescache.DefaultMaxEntries); the bound only cuts answers
	// for settings nobody asks for any more.
	fs.IntVar(&o.manager.Controllers.VariablesCacheMaxEntries, "variables-cache-max-entries", variablescache.DefaultMaxEntries, "Most DiscoverVariables answers cached at once; the oldest are evicted beyond it. At least 1: the cache is always bounded.")
	// Cluster API v1.14.2's core manager, whose controllers these replace,
	// defaults to the same 100 and 200 (its 20 and 30 are for clients of
	// workload clusters); a kubeconfig alone would leave client-go's 5 and
	// 10, which make a status write per ClusterClass take minutes on large
	// management clusters.
	fs.Float64Var(&o.kubeAPIQPS, "kube-api-qps", 100, "Requests per second the manager may send to kube-apiserver.")
	fs.IntVar(&o.kubeAPIBurst, "kube-api-burst", 200, "Requests the manager may send to kube-apiserver in a burst above --kube-api-qps.")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "Path to a kubeconfig; defaults to $KUBECONFIG, then the in-cluster configuration, then ~/.kube/config.")
	o.zap.BindFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [flags]\n\nFlags:\n", name)
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
	// Zero is refused rather than read as "unbounded": answers for settings
	// that are no longer used would then stay forever.
	if o.manager.Controllers.VariablesCacheMaxEntries < 1 {
		return nil, fmt.Errorf("--variables-cache-max-entries must be at least 1, got %d", o.manager.Controllers.VariablesCacheMaxEntries)
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

	mgr, err := standalone.New(ctx, restConfig, o.manager)
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
