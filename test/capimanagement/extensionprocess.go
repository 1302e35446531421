package capimanagement

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/sampleextension"
)

// TestExtension is where Cluster API's test Runtime Extension serves, fixed
// before it first starts, so that ExtensionConfigs can name it while it is
// started and stopped with each control plane it runs against.
type TestExtension struct {
	// URL is its HTTPS address, and CA the CA of its serving certificate.
	URL string
	CA  []byte
	endpoint
}

// NewTestExtension picks the test extension's ports and writes its serving
// certificate under dir.
func NewTestExtension(dir string) (*TestExtension, error) {
	caPEM, certPEM, keyPEM, err := sampleextension.SelfSignedCertificate([]string{"127.0.0.1", "localhost"}, 24*time.Hour)
	if err != nil {
		return nil, err
	}
	e, err := newEndpoint(filepath.Join(dir, "certs", TestExtensionName), certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	return &TestExtension{URL: "https://127.0.0.1:" + strconv.Itoa(e.webhook), CA: caPEM, endpoint: e}, nil
}

// Start runs the test extension against the control plane kubeconfig
// names (it records lifecycle hooks in ConfigMaps there) and waits until
// it serves.
func (x *TestExtension) Start(ctx context.Context, binDir, kubeconfig, logPath string) (*managerprocess.Process, error) {
	return startProvider(ctx, binDir, TestExtensionBinary, kubeconfig, logPath, nil, x.endpoint, defaultStartTimeout)
}

// startProvider runs one of Cluster API's binaries other than the core
// manager with its own ports and certificate directory. A process that does
// not become ready fails with the last lines of its log.
func startProvider(ctx context.Context, binDir, binary, kubeconfig, logPath string, env []string, e endpoint, timeout time.Duration) (*managerprocess.Process, error) {
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
	if err != nil {
		return nil, withLogTail(fmt.Errorf("%s: %w", binary, err), logPath)
	}
	return p, nil
}
