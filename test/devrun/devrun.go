package devrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/cli"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/managerprocess"
)

// Options configure one launch.
type Options struct {
	// LocalDir keeps the local control plane's data, the logs and the
	// sample extension's certificate across runs.
	LocalDir string
	// BinDir holds etcd, kube-apiserver, runtime-sdk-controller and
	// sample-extension, as `make run` builds them.
	BinDir string
	// APIServerPort is the local kube-apiserver's port; zero reuses the
	// last one or picks a free one.
	APIServerPort int
	// Kubeconfig runs the controller alone against that cluster: no local
	// control plane, no extension, no examples.
	Kubeconfig string
	// Bare starts the local control plane and the controller only.
	Bare bool
	// ExamplesDir holds the YAML applied where absent, and
	// extension/variables.yaml, the sample extension's answer.
	ExamplesDir string
	// ExtensionAddress and ExtensionAdminAddress are where the sample
	// extension serves its hooks (HTTPS) and its admin endpoint.
	ExtensionAddress, ExtensionAdminAddress string
	// MetricsAddress and HealthAddress are the controller's metrics
	// (plain HTTP) and probe addresses.
	MetricsAddress, HealthAddress string
	// ControllerArgs are added to the controller's command line.
	ControllerArgs []string
	// SummaryInterval is how often the summary is computed.
	SummaryInterval time.Duration
}

// withDefaults fills what the command line left empty.
func (o Options) withDefaults() Options {
	if o.LocalDir == "" {
		o.LocalDir = ".local"
	}
	if o.ExamplesDir == "" {
		o.ExamplesDir = "examples"
	}
	if o.ExtensionAddress == "" {
		o.ExtensionAddress = DefaultExtensionAddress
	}
	if o.ExtensionAdminAddress == "" {
		o.ExtensionAdminAddress = "127.0.0.1:9444"
	}
	if o.MetricsAddress == "" {
		o.MetricsAddress = "127.0.0.1:8080"
	}
	if o.HealthAddress == "" {
		o.HealthAddress = "127.0.0.1:8081"
	}
	if o.SummaryInterval == 0 {
		o.SummaryInterval = time.Second
	}
	return o
}

// DefaultExtensionAddress is where the examples' ExtensionConfigs expect the
// sample extension; another --extension-address rewrites their URL.
const DefaultExtensionAddress = "127.0.0.1:9443"

// withExtension reports whether this launch starts the sample extension and
// applies the examples.
func (o Options) withExtension() bool { return !o.Bare && o.Kubeconfig == "" }

// Run starts everything, prints the next steps and the summary to out until
// ctx ends or a child process exits, then stops what it started in reverse
// order: controller, extension, control plane.
func Run(ctx context.Context, o Options, out io.Writer) error {
	o = o.withDefaults()
	out = &syncWriter{w: out}
	if err := checkControllerArgs(o.ControllerArgs); err != nil {
		return err
	}
	if err := os.MkdirAll(o.LocalDir, 0o700); err != nil {
		return err
	}
	if err := checkPorts(o); err != nil {
		return err
	}
	config, kubeconfig, stopCluster, err := controlPlane(ctx, o, out)
	if err != nil {
		return err
	}
	defer stopCluster()
	c, err := client.New(config, client.Options{Scheme: scheme.New()})
	if err != nil {
		return err
	}

	var extension *managerprocess.Process
	if o.withExtension() {
		if extension, err = startExtension(ctx, o, c); err != nil {
			return err
		}
		defer stopLogged(out, "sample extension", stopProcess(extension))
	}
	// The controller's log is followed from before it starts, so that a
	// flag error or a crash during start-up reaches the terminal, and read
	// to its end after it stopped.
	warnings := followFromEnd(filepath.Join(o.LocalDir, controllerLog), out)
	followCtx, stopFollowing := context.WithCancel(context.WithoutCancel(ctx))
	followed := make(chan struct{})
	go func() { warnings.run(followCtx); close(followed) }()
	defer func() { stopFollowing(); <-followed }()
	controller, err := startController(ctx, o, kubeconfig)
	if err != nil {
		return err
	}
	defer stopLogged(out, "controller", stopProcess(controller))

	if o.withExtension() {
		for _, failure := range applyExamples(ctx, c, o.ExamplesDir, extensionURL(o)) {
			fmt.Fprintf(out, "examples: %s\n", failure)
		}
	}
	printNextSteps(out, o, kubeconfig)

	summary := &summarizer{client: c, metricsURL: "http://" + o.MetricsAddress + "/metrics"}
	ticker := time.NewTicker(o.SummaryInterval)
	defer ticker.Stop()
	last := ""
	for {
		line, err := summary.line(ctx)
		if err != nil {
			line = "summary not available: " + cli.OneLine(err)
		}
		if line != last && ctx.Err() == nil {
			fmt.Fprintf(out, "%s %s\n", time.Now().Format("15:04:05"), line)
			last = line
		}
		select {
		case <-ctx.Done():
			fmt.Fprintln(out, stopping(o))
			return nil
		case <-controller.Done():
			_, err := controller.Exited()
			return fmt.Errorf("the controller exited (%v); see %s", err, controller.LogPath())
		case <-exited(extension):
			_, err := extension.Exited()
			return fmt.Errorf("the sample extension exited (%v); see %s", err, extension.LogPath())
		case <-ticker.C:
		}
	}
}

// stopping says what Ctrl-C stops, in order.
func stopping(o Options) string {
	switch {
	case o.Kubeconfig != "":
		return "stopping the controller"
	case o.withExtension():
		return "stopping: controller, then sample extension, then control plane"
	default:
		return "stopping: controller, then control plane"
	}
}

// managedFlags are the controller flags the launcher sets itself: the
// summary reads the metrics and start-up waits for the probes it names.
var managedFlags = []string{"kubeconfig", "metrics-bind-address", "metrics-secure", "health-probe-bind-address", "local"}

// checkControllerArgs refuses controller flags that would take from the
// launcher what it needs; each has a launcher flag of its own.
func checkControllerArgs(args []string) error {
	for _, arg := range args {
		name := strings.TrimLeft(arg, "-")
		name, _, _ = strings.Cut(name, "=")
		if strings.HasPrefix(arg, "-") && slices.Contains(managedFlags, name) {
			return fmt.Errorf("controller flag %s is set by rsc-dev: use its --kubeconfig, --metrics-address or --health-address instead", arg)
		}
	}
	return nil
}

// syncWriter serialises the summary's and the log follower's lines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// exited is p's Done channel, or one that never closes without p.
func exited(p *managerprocess.Process) <-chan struct{} {
	if p == nil {
		return nil
	}
	return p.Done()
}

// controlPlane starts the local control plane, or reads --kubeconfig, and
// returns its configuration, a kubeconfig path for the controller and what
// stops it, saying so on out.
func controlPlane(ctx context.Context, o Options, out io.Writer) (*rest.Config, string, func(), error) {
	if o.Kubeconfig != "" {
		config, err := clientcmd.BuildConfigFromFlags("", o.Kubeconfig)
		if err != nil {
			return nil, "", nil, fmt.Errorf("kubeconfig %s: %w", o.Kubeconfig, err)
		}
		return config, o.Kubeconfig, func() {}, nil
	}
	cluster, err := localcluster.StartWithProjectCRDs(ctx, localcluster.Options{Dir: o.LocalDir, BinDir: o.BinDir, APIServerPort: o.APIServerPort})
	if err != nil {
		return nil, "", nil, err
	}
	stop := func() {
		stopLogged(out, "kube-apiserver", cluster.StopAPIServer)
		// kube-apiserver is gone by now: Stop ends etcd alone.
		stopLogged(out, "etcd", cluster.Stop)
	}
	return cluster.Config(), cluster.KubeconfigPath(), stop, nil
}

// startController runs the controller binary against kubeconfig, its log
// in LocalDir/controller.log, and waits until it is ready.
func startController(ctx context.Context, o Options, kubeconfig string) (*managerprocess.Process, error) {
	args := append([]string{
		"--kubeconfig", kubeconfig,
		"--metrics-bind-address", o.MetricsAddress, "--metrics-secure=false",
		"--health-probe-bind-address", o.HealthAddress,
	}, o.ControllerArgs...)
	p, err := managerprocess.Start(ctx, managerprocess.Options{
		Binary:     filepath.Join(o.BinDir, "runtime-sdk-controller"),
		Args:       args,
		LogPath:    filepath.Join(o.LocalDir, controllerLog),
		MetricsURL: "http://" + o.MetricsAddress + "/metrics",
		ReadyURL:   "http://" + o.HealthAddress + "/readyz",
	})
	if err != nil {
		return nil, fmt.Errorf("controller: %w", err)
	}
	return p, nil
}

// printNextSteps prints commands that work as printed from the working
// directory.
func printNextSteps(out io.Writer, o Options, kubeconfig string) {
	kubectl := cli.Relative(filepath.Join(o.BinDir, "kubectl"))
	controller := cli.Relative(filepath.Join(o.BinDir, "runtime-sdk-controller"))
	var b strings.Builder
	fmt.Fprintf(&b, "Up. Logs are in %s. Next, in another terminal:\n", cli.Relative(o.LocalDir))
	fmt.Fprintf(&b, "  export KUBECONFIG=%s\n", cli.Relative(kubeconfig))
	fmt.Fprintf(&b, "  %s get clusterclasses -A\n", kubectl)
	if o.withExtension() {
		// The date makes every run of the command a change.
		fmt.Fprintf(&b, "  %s patch extensionconfig hardening --type merge -p \"{\\\"spec\\\":{\\\"settings\\\":{\\\"revision\\\":\\\"$(date +%%s)\\\"}}}\"\n", kubectl)
		b.WriteString("      (only team-a/hardened uses hardening: the summary below shows one more reconcile)\n")
		fmt.Fprintf(&b, "  %s who-uses extensionconfig hardening\n", controller)
	}
	fmt.Fprintf(&b, "  curl -s http://%s/metrics | grep ^runtime_sdk_\n", o.MetricsAddress)
	b.WriteString("Ctrl-C stops everything.\n")
	_, _ = io.WriteString(out, b.String())
}

// controllerLog is the controller's log file in LocalDir.
const controllerLog = "controller.log"

// errPortInUse is a port a child process needs that something else holds.
var errPortInUse = errors.New("in use")
