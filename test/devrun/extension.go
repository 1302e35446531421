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

package devrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// The Secrets holding each extension's CA under ca.crt; the examples'
// ExtensionConfigs name them in runtime.cluster.x-k8s.io/inject-ca-from-secret.
var (
	SampleExtensionCASecret = client.ObjectKey{Namespace: "default", Name: "sample-extension-ca"}
	TestExtensionCASecret   = client.ObjectKey{Namespace: "default", Name: "capi-test-extension-ca"}
)

// certificateLifetime of the sample extension's certificate, made afresh
// with each management cluster.
const certificateLifetime = 7 * 24 * time.Hour

// startExtension starts the sample extension with a certificate written
// under dir, its log in dir/logs, and returns it with its CA.
func startExtension(ctx context.Context, o Options, dir string) (*managerprocess.Process, []byte, error) {
	certDir := filepath.Join(dir, "certs", "sample-extension")
	caPEM, certPEM, keyPEM, err := sampleextension.SelfSignedCertificate([]string{"localhost", "127.0.0.1"}, certificateLifetime)
	if err != nil {
		return nil, nil, fmt.Errorf("sample extension certificate: %w", err)
	}
	for _, sub := range []string{certDir, filepath.Join(dir, "logs")} {
		if err := os.MkdirAll(sub, 0o700); err != nil {
			return nil, nil, err
		}
	}
	certFile, keyFile := filepath.Join(certDir, "tls.crt"), filepath.Join(certDir, "tls.key")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		return nil, nil, err
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
		LogPath:  filepath.Join(dir, "logs", "sample-extension.log"),
		ReadyURL: "http://" + o.ExtensionAdminAddress + "/healthz",
	})
	if err != nil {
		return nil, nil, fmt.Errorf("sample extension: %w", err)
	}
	return p, caPEM, nil
}

// writeCASecrets writes the sample extension's CA and the test extension's
// into the Secrets the examples' ExtensionConfigs inject them from.
func writeCASecrets(ctx context.Context, mgmt *capimanagement.Management, sampleCA []byte) error {
	for _, s := range []struct {
		key client.ObjectKey
		ca  []byte
	}{{SampleExtensionCASecret, sampleCA}, {TestExtensionCASecret, mgmt.ExtensionCA}} {
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: s.key.Namespace, Name: s.key.Name},
			Data:       map[string][]byte{"ca.crt": s.ca},
		}
		if err := mgmt.Client.Create(ctx, secret); err != nil {
			return fmt.Errorf("write a CA into Secret %s: %w", s.key, err)
		}
	}
	return nil
}

// extensionURL is where the sample extension serves its hooks.
func extensionURL(o Options) string { return "https://" + o.ExtensionAddress }

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
