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

package capibaseline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/capiversion"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
)

// Names of what `make capi-baseline` builds into the tool directory.
const (
	// Binary is Cluster API's core manager.
	Binary = "capi-baseline"
	// CRDDir holds the core CRDs of the same module.
	CRDDir = "capi-baseline-crds"
)

// Module and Version are what bin/capi-baseline is built from, unmodified
// (hack/capi-baseline/go.mod pins it).
const (
	Module  = "sigs.k8s.io/cluster-api"
	Version = capiversion.Version
)

// ErrMissing is returned when `make capi-baseline` has not run.
var ErrMissing = errors.New("bin/capi-baseline (Cluster API's core manager, " + Module + " " + Version + ") is missing: build it with `make capi-baseline`")

// Check returns ErrMissing (wrapped, naming the path) when the binary or its
// CRDs are not in binDir.
func Check(binDir string) error {
	for _, name := range []string{Binary, CRDDir} {
		if _, err := os.Stat(filepath.Join(binDir, name)); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w (looked for %s)", ErrMissing, filepath.Join(binDir, name))
		} else if err != nil {
			return err
		}
	}
	return nil
}

// CRDs returns Cluster API's core CRDs (Cluster, Machine, ClusterClass,
// ExtensionConfig and the rest), in file name order.
func CRDs(binDir string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	dir := filepath.Join(binDir, CRDDir)
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%w (no CRDs in %s)", ErrMissing, dir)
	}
	sort.Strings(files)
	crds := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(data, crd); err != nil {
			return nil, fmt.Errorf("decode %s: %w", f, err)
		}
		crds = append(crds, crd)
	}
	return crds, nil
}

// Options start Cluster API's manager.
type Options struct {
	// BinDir holds bin/capi-baseline.
	BinDir string
	// Binary, when set, runs this build of the core manager instead, with
	// the same flags: the drop-in core manager. Its readiness includes its
	// registry warm-up, so Start does not wait for Cluster API's log line.
	Binary string
	// Kubeconfig names the control plane.
	Kubeconfig string
	// LogPath receives its output.
	LogPath string
	// Args are extra flags, after ours (a later flag wins).
	Args []string
	// Launcher, when set, runs the manager: it is given the binary, then
	// its flags (test/incluster's, for --leader-elect out of a cluster).
	Launcher string
	// Standby is a replica that stands by: Cluster API's warm-up runs only
	// once a replica leads, so Start does not wait for it.
	Standby bool
	// WebhookPort and WebhookCertDir, when set, are the port its webhook
	// server listens on (on every interface: the flag takes no host) and
	// the tls.crt and tls.key it serves,
	// for a control plane whose webhooks point at it. Otherwise Start picks
	// a free port and writes a throw-away certificate.
	WebhookPort    int
	WebhookCertDir string
}

// Manager is a running Cluster API core manager.
type Manager struct {
	*managerprocess.Process
	certDir   string
	healthURL string
}

// Start runs the manager and waits until it is ready (its webhook server
// started; nothing registers the webhooks with the apiserver, so fixtures
// set explicitly what they would default). Cluster API's warm-up re-runs
// Discovery of every ExtensionConfig and exits the process after 60 s when
// an extension is down, which Exited reports.
func Start(ctx context.Context, opts Options) (*Manager, error) {
	// Another build (the drop-in) needs nothing of `make capi-baseline`.
	if opts.Binary == "" {
		if err := Check(opts.BinDir); err != nil {
			return nil, err
		}
	}
	certDir, ownCertDir := opts.WebhookCertDir, false
	if certDir == "" {
		var err error
		if certDir, err = webhookCertDir(); err != nil {
			return nil, err
		}
		ownCertDir = true
	}
	removeCertDir := func() {
		if ownCertDir {
			os.RemoveAll(certDir)
		}
	}
	ports := make([]int, 3)
	for i := range ports {
		var err error
		if ports[i], err = localcluster.FreePort(); err != nil {
			removeCertDir()
			return nil, err
		}
	}
	webhook, diagnostics, health := ports[0], ports[1], ports[2]
	if opts.WebhookPort != 0 {
		webhook = opts.WebhookPort
	}
	args := append([]string{
		"--kubeconfig=" + opts.Kubeconfig,
		"--feature-gates=ClusterTopology=true,RuntimeSDK=true",
		// Its default 9443 is also the sample extension's port.
		"--webhook-port=" + strconv.Itoa(webhook),
		"--webhook-cert-dir=" + certDir,
		"--insecure-diagnostics",
		"--diagnostics-address=127.0.0.1:" + strconv.Itoa(diagnostics),
		"--health-addr=127.0.0.1:" + strconv.Itoa(health),
	}, opts.Args...)
	binary := opts.Binary
	if binary == "" {
		binary = filepath.Join(opts.BinDir, Binary)
	}
	if opts.Launcher != "" {
		binary, args = opts.Launcher, append([]string{binary}, args...)
	}
	p, err := managerprocess.Start(ctx, managerprocess.Options{
		Binary:       binary,
		Args:         args,
		LogPath:      opts.LogPath,
		MetricsURL:   "http://127.0.0.1:" + strconv.Itoa(diagnostics) + "/metrics",
		ReadyURL:     "http://127.0.0.1:" + strconv.Itoa(health) + "/readyz",
		ReadyTimeout: 2 * time.Minute,
	})
	if err != nil {
		removeCertDir()
		if opts.Binary != "" {
			return nil, fmt.Errorf("core manager %s: %w", opts.Binary, err)
		}
		return nil, fmt.Errorf("Cluster API's core manager (%s %s): %w", Module, Version, err)
	}
	m := &Manager{Process: p, healthURL: "http://127.0.0.1:" + strconv.Itoa(health)}
	if ownCertDir {
		m.certDir = certDir
	}
	if opts.Binary != "" || opts.Standby {
		return m, nil
	}
	// Ready means its webhook server listens; its registry warm-up runs
	// beside that. An ExtensionConfig created before the warm-up lists
	// would be discovered by it, and an unreachable one makes it exit the
	// process after 60 s: wait for it to say it is done.
	if err := m.waitForLog(ctx, warmedUp, 2*time.Minute); err != nil {
		m.Stop()
		return nil, fmt.Errorf("Cluster API's core manager (%s %s): %w", Module, Version, err)
	}
	return m, nil
}

// HealthURL is where the manager serves /healthz and /readyz, over plain
// HTTP, without the path.
func (m *Manager) HealthURL() string { return m.healthURL }

// warmedUp is what Cluster API's manager logs once its registry warm-up
// has listed every ExtensionConfig and discovered them.
const warmedUp = "The extension registry is warmed up"

// waitForLog polls the manager's log until it holds line.
func (m *Manager) waitForLog(ctx context.Context, line string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		data, err := os.ReadFile(m.LogPath())
		if err == nil && strings.Contains(string(data), line) {
			return nil
		}
		if exited, exitErr := m.Exited(); exited {
			return fmt.Errorf("Cluster API's manager exited before logging %q (%v); see %s", line, exitErr, m.LogPath())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("Cluster API's manager did not log %q within %s; see %s", line, timeout, m.LogPath())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop stops the manager and removes the webhook certificate Start wrote.
func (m *Manager) Stop() {
	m.Process.Stop()
	if m.certDir != "" {
		os.RemoveAll(m.certDir)
	}
}

// webhookCertDir writes a throw-away serving certificate where the webhook
// server looks for tls.crt and tls.key.
func webhookCertDir() (string, error) {
	_, certPEM, keyPEM, err := sampleextension.SelfSignedCertificate([]string{"127.0.0.1", "localhost"}, 24*time.Hour)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "capi-baseline-webhook-")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), certPEM, 0o600); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.key"), keyPEM, 0o600); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// Require returns the tool directory when bin/capi-baseline is there. When
// it is not, the test is skipped if run by hand, and fails under CI
// (CI=true), where `make test` must have built it.
func Require(t testing.TB) string {
	t.Helper()
	return toolbin.Require(t, Check)
}
