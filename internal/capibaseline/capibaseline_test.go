package capibaseline_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/capibaseline"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/testsync"
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
		testsync.Eventually(t, time.Minute, "controller "+controller+" runs", func() (bool, string) {
			metrics, err := m.Scrape(ctx)
			if err != nil {
				return false, err.Error()
			}
			workers := metrics.Sum("controller_runtime_max_concurrent_reconciles", map[string]string{"controller": controller})
			return workers > 0, "no workers reported"
		})
	}
}
