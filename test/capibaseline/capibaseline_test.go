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

package capibaseline_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
)

func TestStart_RunsClusterAPIsManagerWithItsRuntimeSDKControllers(t *testing.T) {
	binDir := capibaseline.Require(t)
	crds, err := capibaseline.CRDs(binDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	cluster, err := localcluster.Start(ctx, localcluster.Options{Dir: filepath.Join(dir, "cluster"), BinDir: binDir, CRDs: crds})
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Stop()

	started := time.Now()
	m, err := capibaseline.Start(ctx, capibaseline.Options{BinDir: binDir, Kubeconfig: cluster.KubeconfigPath(), LogPath: filepath.Join(dir, "capi.log")})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	t.Logf("ready in %s", time.Since(started).Round(time.Millisecond))
	for _, controller := range []string{"clusterclass", "extensionconfig"} {
		polltest.Eventually(t, time.Minute, "controller "+controller+" runs", func() (bool, string) {
			metrics, err := m.Scrape(ctx)
			if err != nil {
				return false, err.Error()
			}
			workers := metrics.Sum("controller_runtime_max_concurrent_reconciles", map[string]string{"controller": controller})
			return workers > 0, "no workers reported"
		})
	}
}

// The version errors and reports name is the one hack/capi-baseline builds.
func TestVersion_IsTheOneTheBaselineIsBuiltFrom(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "hack", "capi-baseline", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if want := capibaseline.Module + " " + capibaseline.Version; !strings.Contains(string(data), want) {
		t.Errorf("hack/capi-baseline/go.mod does not require %s", want)
	}
}

// A missing baseline is an error naming what to build, never a silent
// fallback.
func TestCheck_NamesTheModuleAndVersionOfAMissingBaseline(t *testing.T) {
	err := capibaseline.Check(t.TempDir())
	if !errors.Is(err, capibaseline.ErrMissing) || !strings.Contains(err.Error(), capibaseline.Module+" "+capibaseline.Version) ||
		!strings.Contains(err.Error(), "make capi-baseline") {
		t.Errorf("Check on an empty directory: %v", err)
	}
}
