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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
)

// Names of what `make capi-providers` builds into the tool directory.
const (
	BootstrapBinary    = "capi-kubeadm-bootstrap"
	ControlPlaneBinary = "capi-kubeadm-control-plane"
	// InfrastructureBinary is the Docker provider's binary, whose in-memory
	// backend is the in-memory provider.
	InfrastructureBinary = "capi-infrastructure-docker"
	TestExtensionBinary  = "capi-test-extension"
	ClusterctlBinary     = "clusterctl"
	// DataDir holds the rendered CRDs and webhooks, per provider, and
	// Cluster API's e2e templates.
	DataDir = "capi-providers-data"
)

// ErrMissing is returned when `make capi-providers` has not run.
var ErrMissing = errors.New("Cluster API's providers (" + capibaseline.Module + " " + capibaseline.Version +
	") are missing: build them with `make capi-providers`")

// Check returns ErrMissing (wrapped, naming the path) when a provider
// binary or the rendered data is not in binDir.
func Check(binDir string) error {
	// One provider's metadata.yaml stands for a rendering made before
	// make capi-providers copied them.
	for _, name := range []string{BootstrapBinary, ControlPlaneBinary, InfrastructureBinary, TestExtensionBinary, ClusterctlBinary, DataDir, filepath.Join(DataDir, "core", "metadata.yaml")} {
		if _, err := os.Stat(filepath.Join(binDir, name)); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w (looked for %s)", ErrMissing, filepath.Join(binDir, name))
		} else if err != nil {
			return err
		}
	}
	return nil
}

// Require returns the tool directory when the providers, Cluster API's
// core manager and the control plane's binaries are all there. When one is
// not, the test is skipped if run by hand, and fails under CI (CI=true),
// where `make test` must have built them.
func Require(t testing.TB) string {
	t.Helper()
	return toolbin.Require(t, func(binDir string) error {
		if err := toolbin.CheckAll(binDir, toolbin.Etcd, toolbin.KubeAPIServer); err != nil {
			return err
		}
		if err := capibaseline.Check(binDir); err != nil {
			return err
		}
		return Check(binDir)
	})
}
