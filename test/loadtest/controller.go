package loadtest

import (
	"context"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/capiversion"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/standalone"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/drill"
)

// Controller is the controller a run measures: ours in this process, ours
// as its own process, or Cluster API's core manager.
type Controller interface {
	// Name says which it is in tables.
	Name() string
	// Start runs it with the periods of its periodic work.
	Start(ctx context.Context, p Periods) error
	// Stop ends it; Start may run it again.
	Stop()
	// Reconciles is controller_runtime_reconcile_total of its ClusterClass
	// controller, summed over every start.
	Reconciles() int64
	// Refreshes counts the DiscoverVariables answers it asked again, all
	// and those that came back the same; zero where it does not say.
	Refreshes() (all, unchanged float64)
}

// Periods set a controller's periodic work. Zero keeps it out of the way
// of the events, which trigger the work they need.
type Periods struct {
	// VariablesMaxAge is our --variables-cache-max-age (zero: answers are
	// never asked again). Cluster API's DiscoverVariables cache TTL is
	// fixed at 10 minutes.
	VariablesMaxAge time.Duration
	// Resync is our --rediscovery-interval and Cluster API's
	// --sync-period (zero: an hour for ours, Cluster API's default of 10
	// minutes).
	Resync time.Duration
}

// DefaultPeriod is Cluster API's default --sync-period and its
// DiscoverVariables cache TTL: the period an idle row at default periods
// lasts.
const DefaultPeriod = 10 * time.Minute

// Controller names in results.
const (
	NameOurs = "runtime-sdk-controller"
	NameCAPI = "cluster-api-" + capiversion.Version
	// NameDropIn is the drop-in core manager: Cluster API's with our
	// ExtensionConfig and ClusterClass controllers and runtime client.
	NameDropIn = "core-manager"
)

// The flags both processes run with: Cluster API v1.14.2's core manager's
// defaults, so that neither is throttled differently.
var sharedFlags = []string{"--kube-api-qps=100", "--kube-api-burst=200"}

// ourResync is our --rediscovery-interval: an hour unless set, so that
// re-discovery adds no noise to events that trigger Discovery themselves.
func (p Periods) ourResync() time.Duration {
	if p.Resync > 0 {
		return p.Resync
	}
	return time.Hour
}

// inProcess runs our manager in this process, where the simulated scan can
// read its cache.
type inProcess struct {
	config *rest.Config
	mgr    ctrl.Manager
	stop   func()
}

func (c *inProcess) Name() string { return NameOurs }

func (c *inProcess) Start(ctx context.Context, p Periods) error {
	ctx, cancel := context.WithCancel(ctx)
	mgr, err := standalone.New(ctx, c.config, standalone.Options{
		Controllers: controllers.Options{
			VariablesCacheMaxAge:    p.VariablesMaxAge,
			RediscoveryInterval:     p.ourResync(),
			ClusterClassConcurrency: 10,
		},
		MetricsBindAddress:     "0",
		HealthProbeBindAddress: "0",
		SkipNameValidation:     true,
	})
	if err != nil {
		cancel()
		return err
	}
	c.mgr = mgr
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = mgr.Start(ctx)
	}()
	c.stop = func() {
		cancel()
		<-done
	}
	return nil
}

func (c *inProcess) Stop() {
	if c.stop != nil {
		c.stop()
		c.stop = nil
	}
}

func (c *inProcess) Reconciles() int64 {
	m, err := managerprocess.Gather(ctrlmetrics.Registry)
	if err != nil {
		return 0
	}
	return int64(m.Sum("controller_runtime_reconcile_total", map[string]string{"controller": "clusterclass"}))
}

func (c *inProcess) Refreshes() (all, unchanged float64) { return refreshes(), unchangedRefreshes() }

// cache is what the simulated scan reads.
func (c *inProcess) cache() client.Reader { return c.mgr.GetCache() }

// process is a controller running as its own process, scraped over HTTP.
type process struct {
	name    string
	start   func(ctx context.Context, p Periods, logPath string) (*managerprocess.Process, func(), error)
	logDir  string
	running *managerprocess.Process
	stop    func()
	starts  int
	// earlier sums what the processes stopped before had counted, last
	// what the running one counted at its last scrape.
	earlier, last metricTotals
}

type metricTotals struct {
	reconciles     int64
	all, unchanged float64
}

// OurProcess runs our controller binary against kubeconfig, its logs in
// logDir, with args after the shared flags.
func OurProcess(binary, kubeconfig, logDir string, args ...string) Controller {
	return &process{
		name:   NameOurs,
		logDir: logDir,
		start: func(ctx context.Context, p Periods, logPath string) (*managerprocess.Process, func(), error) {
			flags := append(append([]string{}, sharedFlags...),
				"--rediscovery-interval="+p.ourResync().String(), "--variables-cache-max-age="+p.VariablesMaxAge.String())
			c, err := drill.StartController(ctx, drill.ControllerOptions{
				Binary: binary, Kubeconfig: kubeconfig, LogPath: logPath, Args: append(flags, args...),
			})
			if err != nil {
				return nil, nil, err
			}
			return c.Process, c.Stop, nil
		},
	}
}

// CAPIProcess runs Cluster API's core manager (bin/capi-baseline in binDir)
// against kubeconfig, its logs in logDir, with args after the shared flags.
func CAPIProcess(binDir, kubeconfig, logDir string, args ...string) Controller {
	return coreManagerProcess(NameCAPI, "", binDir, kubeconfig, logDir, args)
}

// DropInProcess runs the drop-in core manager binary as CAPIProcess runs
// Cluster API's, with the same flags: its --sync-period is also its
// re-discovery interval, and its DiscoverVariables answers live 10
// minutes, as Cluster API's do.
func DropInProcess(binary, binDir, kubeconfig, logDir string, args ...string) Controller {
	return coreManagerProcess(NameDropIn, binary, binDir, kubeconfig, logDir, args)
}

// coreManagerProcess runs a build of Cluster API's core manager: binary,
// or bin/capi-baseline when it is empty.
func coreManagerProcess(name, binary, binDir, kubeconfig, logDir string, args []string) Controller {
	return &process{
		name:   name,
		logDir: logDir,
		start: func(ctx context.Context, p Periods, logPath string) (*managerprocess.Process, func(), error) {
			flags := append([]string{}, sharedFlags...)
			if p.Resync > 0 {
				flags = append(flags, "--sync-period="+p.Resync.String())
			}
			m, err := capibaseline.Start(ctx, capibaseline.Options{
				BinDir: binDir, Binary: binary, Kubeconfig: kubeconfig, LogPath: logPath,
				Args: append(flags, args...),
			})
			if err != nil {
				return nil, nil, err
			}
			return m.Process, m.Stop, nil
		},
	}
}

func (p *process) Name() string { return p.name }

func (p *process) Start(ctx context.Context, periods Periods) error {
	p.starts++
	logPath := filepath.Join(p.logDir, p.name+"-"+strconv.Itoa(p.starts)+".log")
	running, stop, err := p.start(ctx, periods, logPath)
	if err != nil {
		return err
	}
	p.running, p.stop = running, stop
	return nil
}

func (p *process) Stop() {
	if p.stop == nil {
		return
	}
	p.scrape()
	p.earlier.reconciles += p.last.reconciles
	p.earlier.all += p.last.all
	p.earlier.unchanged += p.last.unchanged
	p.last = metricTotals{}
	p.stop()
	p.stop, p.running = nil, nil
}

// scrape reads the running process's counters; a failed scrape keeps the
// last ones (they only grow).
func (p *process) scrape() {
	if p.running == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m, err := p.running.Scrape(ctx)
	if err != nil {
		return
	}
	p.last = metricTotals{
		reconciles: int64(m.Sum("controller_runtime_reconcile_total", map[string]string{"controller": "clusterclass"})),
		all:        m.Sum("runtime_sdk_variables_refreshes_total", nil),
		unchanged:  m.Sum("runtime_sdk_variables_refreshes_total", map[string]string{"outcome": "unchanged"}),
	}
}

func (p *process) Reconciles() int64 {
	p.scrape()
	return p.earlier.reconciles + p.last.reconciles
}

func (p *process) Refreshes() (all, unchanged float64) {
	p.scrape()
	return p.earlier.all + p.last.all, p.earlier.unchanged + p.last.unchanged
}
