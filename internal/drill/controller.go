package drill

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// ControllerOptions start one controller process.
type ControllerOptions struct {
	// Binary is the runtime-sdk-controller executable.
	Binary string
	// Kubeconfig names the control plane to run against.
	Kubeconfig string
	// Args are extra flags (intervals, timeouts, cache bounds).
	Args []string
	// LogPath receives the process's stderr.
	LogPath string
}

// Controller is a running controller process.
type Controller struct {
	cmd        *exec.Cmd
	metricsURL string
	done       chan struct{}
	err        error // set before done is closed
	logFile    *os.File
	logPath    string
}

// StartController starts the binary and waits until it reports ready
// (its handler registry warmed up).
func StartController(ctx context.Context, opts ControllerOptions) (*Controller, error) {
	metricsPort, err := freePort()
	if err != nil {
		return nil, err
	}
	probePort, err := freePort()
	if err != nil {
		return nil, err
	}
	logFile, err := os.OpenFile(opts.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("controller log: %w", err)
	}
	args := append([]string{
		"--kubeconfig", opts.Kubeconfig,
		"--metrics-bind-address", "127.0.0.1:" + strconv.Itoa(metricsPort),
		"--health-probe-bind-address", "127.0.0.1:" + strconv.Itoa(probePort),
	}, opts.Args...)
	cmd := exec.Command(opts.Binary, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	// Never outlive the drill, even when it is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start controller %s: %w", opts.Binary, err)
	}
	c := &Controller{
		cmd:        cmd,
		metricsURL: "http://127.0.0.1:" + strconv.Itoa(metricsPort) + "/metrics",
		done:       make(chan struct{}),
		logFile:    logFile,
		logPath:    opts.LogPath,
	}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	ready := "http://127.0.0.1:" + strconv.Itoa(probePort) + "/readyz"
	if err := c.waitReady(ctx, ready, 2*time.Minute); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Controller) waitReady(ctx context.Context, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		if exited, err := c.Exited(); exited {
			return fmt.Errorf("controller exited during start-up (%v); see %s", err, c.logPath)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Errorf("readyz answered %s", resp.Status)
		} else {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("controller not ready after %s (last: %v); see %s", timeout, last, c.logPath)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// PID is the process id.
func (c *Controller) PID() int { return c.cmd.Process.Pid }

// Exited reports whether the process has ended, and how.
func (c *Controller) Exited() (bool, error) {
	select {
	case <-c.done:
		return true, c.err
	default:
		return false, nil
	}
}

// Stop ends the process: SIGTERM, then SIGKILL after a grace period.
func (c *Controller) Stop() {
	defer c.logFile.Close()
	if exited, _ := c.Exited(); exited {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(20 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// Sample is one reading of the controller process.
type Sample struct {
	// At is the time since the drill started.
	At time.Duration `json:"at"`
	// RSSBytes is the resident set size (VmRSS).
	RSSBytes int64 `json:"rssBytes"`
	// HeapBytes is the Go heap in use.
	HeapBytes int64 `json:"heapBytes"`
	// Goroutines is go_goroutines.
	Goroutines int `json:"goroutines"`
	// Reconciles and ReconcileErrors count ClusterClass reconciles.
	Reconciles      int64 `json:"reconciles"`
	ReconcileErrors int64 `json:"reconcileErrors"`
	// Enqueued counts the ClusterClass requests that events added to the
	// queue (retries after errors are added by the queue's backoff and are
	// not in it).
	Enqueued int64 `json:"enqueued"`
	// DiscoverVariablesCalls and DiscoveryCalls count calls that reached an
	// extension (success or error; cache hits and shared calls excluded).
	DiscoverVariablesCalls int64 `json:"discoverVariablesCalls"`
	DiscoveryCalls         int64 `json:"discoveryCalls"`
	// CacheEntries is the DiscoverVariables call cache's size.
	CacheEntries int64 `json:"cacheEntries"`
	// RegisteredHandlers is the registry's size.
	RegisteredHandlers int64 `json:"registeredHandlers"`
}

// Sample reads the process's RSS and scrapes its metrics.
func (c *Controller) Sample(ctx context.Context) (Sample, error) {
	var s Sample
	rss, err := rssBytes(c.PID())
	if err != nil {
		return s, err
	}
	s.RSSBytes = rss
	families, err := scrape(ctx, c.metricsURL)
	if err != nil {
		return s, err
	}
	s.HeapBytes = int64(sum(families, "go_memstats_heap_inuse_bytes", nil))
	s.Goroutines = int(sum(families, "go_goroutines", nil))
	isClusterClass := map[string]string{"controller": "clusterclass"}
	s.Reconciles = int64(sum(families, "controller_runtime_reconcile_total", isClusterClass))
	s.ReconcileErrors = int64(sum(families, "controller_runtime_reconcile_errors_total", isClusterClass))
	s.Enqueued = int64(sum(families, "runtime_sdk_clusterclass_enqueued_total", nil))
	for _, outcome := range []string{"success", "error"} {
		s.DiscoverVariablesCalls += int64(sum(families, "runtime_sdk_extension_calls_total", map[string]string{"hook": "DiscoverVariables", "outcome": outcome}))
		s.DiscoveryCalls += int64(sum(families, "runtime_sdk_extension_calls_total", map[string]string{"hook": "Discovery", "outcome": outcome}))
	}
	s.CacheEntries = int64(sum(families, "runtime_sdk_variables_cache_entries", nil))
	s.RegisteredHandlers = int64(sum(families, "runtime_sdk_registered_handlers", nil))
	return s, nil
}

// rssBytes reads VmRSS of a process from /proc.
func rssBytes(pid int) (int64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, fmt.Errorf("read RSS of pid %d: %w", pid, err)
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) == 3 && fields[0] == "VmRSS:" && fields[2] == "kB" {
			kib, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("VmRSS of pid %d: %w", pid, err)
			}
			return kib << 10, nil
		}
	}
	return 0, fmt.Errorf("pid %d reports no VmRSS", pid)
}

func scrape(ctx context.Context, url string) (map[string]*dto.MetricFamily, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("parse metrics of %s: %w", url, err)
	}
	return families, nil
}

// sum adds the values of a family's series whose labels include want.
func sum(families map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	family, ok := families[name]
	if !ok {
		return 0
	}
	total := 0.0
	for _, m := range family.GetMetric() {
		if !hasLabels(m, want) {
			continue
		}
		switch {
		case m.Counter != nil:
			total += m.Counter.GetValue()
		case m.Gauge != nil:
			total += m.Gauge.GetValue()
		case m.Untyped != nil:
			total += m.Untyped.GetValue()
		}
	}
	return total
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	found := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			found++
		}
	}
	return found == len(want)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pick a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
