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

package capimanagement

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/proctest"
)

// endpoint is one process's ports on 127.0.0.1 and certificate directory.
type endpoint struct {
	webhook, health, diagnostics int
	certDir                      string
}

// newEndpoint picks a process's ports and writes its serving certificate.
func newEndpoint(certDir string, certPEM, keyPEM []byte) (endpoint, error) {
	var e endpoint
	for _, port := range []*int{&e.webhook, &e.health, &e.diagnostics} {
		var err error
		if *port, err = localcluster.FreePort(); err != nil {
			return endpoint{}, err
		}
	}
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return endpoint{}, err
	}
	if err := os.WriteFile(filepath.Join(certDir, "tls.crt"), certPEM, 0o600); err != nil {
		return endpoint{}, err
	}
	if err := os.WriteFile(filepath.Join(certDir, "tls.key"), keyPEM, 0o600); err != nil {
		return endpoint{}, err
	}
	e.certDir = certDir
	return e, nil
}

// startProvider runs one of Cluster API's binaries other than the core
// manager with its own ports and certificate directory. A process that does
// not become ready fails with the last lines of its log.
func startProvider(ctx context.Context, binDir, binary, kubeconfig, logPath string, env []string, e endpoint, timeout time.Duration) (*managerprocess.Process, error) {
	for attempt := 1; ; attempt++ {
		// The log is appended to: this attempt's lines start here.
		logStart := fileSize(logPath)
		p, err := managerprocess.Start(ctx, managerprocess.Options{
			Binary: filepath.Join(binDir, binary),
			Args: []string{
				"--kubeconfig=" + kubeconfig,
				"--feature-gates=" + FeatureGates,
				"--webhook-port=" + strconv.Itoa(e.webhook),
				"--webhook-cert-dir=" + e.certDir,
				"--health-addr=127.0.0.1:" + strconv.Itoa(e.health),
				"--insecure-diagnostics",
				"--diagnostics-address=127.0.0.1:" + strconv.Itoa(e.diagnostics),
			},
			Env:          env,
			LogPath:      logPath,
			MetricsURL:   "http://127.0.0.1:" + strconv.Itoa(e.diagnostics) + "/metrics",
			ReadyURL:     "http://127.0.0.1:" + strconv.Itoa(e.health) + "/readyz",
			ReadyTimeout: timeout,
		})
		if err == nil {
			return p, nil
		}
		if attempt == maxStartAttempts || !portTaken(logPath, logStart) {
			return nil, withLogTail(fmt.Errorf("%s: %w", binary, err), logPath)
		}
		// A free port can be taken by another process between its pick and
		// this bind (seen with go test's packages in parallel). The health
		// and metrics ports are picked again; the webhook port stays, as the
		// webhook configurations name it.
		if e.health, err = localcluster.FreePort(); err != nil {
			return nil, err
		}
		if e.diagnostics, err = localcluster.FreePort(); err != nil {
			return nil, err
		}
	}
}

// maxStartAttempts bounds the starts of one provider whose port was taken.
const maxStartAttempts = 3

// portTaken reports whether a process's log, from offset from, says a
// port it was to listen on was in use.
func portTaken(logPath string, from int64) bool {
	data, err := os.ReadFile(logPath)
	if err != nil || int64(len(data)) < from {
		return false
	}
	return strings.Contains(string(data[from:]), "address already in use")
}

// fileSize is the size of the file at path, or 0 when there is none.
func fileSize(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}

// withLogTail adds the last lines of a process's log to its failure.
func withLogTail(err error, logPath string) error {
	data, readErr := os.ReadFile(logPath)
	if readErr != nil {
		return err
	}
	return fmt.Errorf("%w\nlast lines of %s:\n%s", err, logPath, proctest.Tail(string(data), 30))
}
