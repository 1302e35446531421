package devrun

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/managerprocess"
)

// CASecret holds the sample extension's CA under ca.crt; the examples'
// ExtensionConfigs name it in runtime.cluster.x-k8s.io/inject-ca-from-secret.
var CASecret = client.ObjectKey{Namespace: "default", Name: "sample-extension-ca"}

// certificateLifetime of the extension's certificate, generated once per
// data directory so that restarts keep the CA the cluster already holds.
const certificateLifetime = 5 * 365 * 24 * time.Hour

// startExtension starts the sample extension with a certificate kept in
// LocalDir and writes its CA into CASecret.
func startExtension(ctx context.Context, o Options, c client.Client) (*managerprocess.Process, error) {
	dir := filepath.Join(o.LocalDir, "sample-extension")
	caPEM, certFile, keyFile, err := servingCertificate(dir, o.ExtensionAddress)
	if err != nil {
		return nil, fmt.Errorf("sample extension certificate: %w", err)
	}
	args := []string{
		"--address", o.ExtensionAddress, "--admin-address", o.ExtensionAdminAddress,
		"--cert-file", certFile, "--key-file", keyFile,
	}
	if variables := filepath.Join(o.ExamplesDir, "extension", "variables.yaml"); fileExists(variables) {
		args = append(args, "--variables-file", variables)
	}
	p, err := managerprocess.Start(ctx, managerprocess.Options{
		Binary:   filepath.Join(o.BinDir, "sample-extension"),
		Args:     args,
		LogPath:  filepath.Join(o.LocalDir, "sample-extension.log"),
		ReadyURL: "http://" + o.ExtensionAdminAddress + "/healthz",
	})
	if err != nil {
		return nil, fmt.Errorf("sample extension: %w", err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: CASecret.Namespace, Name: CASecret.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, c, secret, func() error {
		secret.Data = map[string][]byte{"ca.crt": caPEM}
		return nil
	}); err != nil {
		p.Stop()
		return nil, fmt.Errorf("write the sample extension's CA into Secret %s: %w", CASecret, err)
	}
	return p, nil
}

// servingCertificate returns the CA and the certificate files in dir,
// generating them for address's host when absent.
func servingCertificate(dir, address string) (caPEM []byte, certFile, keyFile string, err error) {
	caFile := filepath.Join(dir, "ca.crt")
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return nil, "", "", fmt.Errorf("--extension-address %q: %w", address, err)
	}
	if caPEM, err = os.ReadFile(caFile); err == nil && fileExists(keyFile) && stillServes(certFile, host) {
		return caPEM, certFile, keyFile, nil
	}
	hosts := []string{"localhost", "127.0.0.1"}
	if host != "" && host != "localhost" && host != "127.0.0.1" {
		hosts = append(hosts, host)
	}
	caPEM, certPEM, keyPEM, err := sampleextension.SelfSignedCertificate(hosts, certificateLifetime)
	if err != nil {
		return nil, "", "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", "", err
	}
	for _, f := range []struct {
		path string
		data []byte
		mode os.FileMode
	}{{certFile, certPEM, 0o644}, {keyFile, keyPEM, 0o600}, {caFile, caPEM, 0o644}} {
		if err := os.WriteFile(f.path, f.data, f.mode); err != nil {
			return nil, "", "", err
		}
	}
	return caPEM, certFile, keyFile, nil
}

// stillServes reports whether the certificate in file is valid for another
// day and names host; otherwise a new one is generated.
func stillServes(file, host string) bool {
	data, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return false
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return false
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return time.Now().Add(24*time.Hour).Before(cert.NotAfter) && cert.VerifyHostname(host) == nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
