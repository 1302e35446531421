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

package capinode

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// renderRepository runs make clusterctl-repository's script on a copy of
// make capi-providers' rendering (each provider's components file and
// metadata), less the files named, and returns its output folder and what
// it printed.
func renderRepository(t *testing.T, binDir string, without ...string) (string, string, error) {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	for _, p := range releaseProviders {
		for _, file := range []string{"components.yaml", "metadata.yaml"} {
			source := filepath.Join(p.comp.Name, file)
			if slices.Contains(without, source) {
				continue
			}
			content, err := os.ReadFile(filepath.Join(binDir, capimanagement.DataDir, source))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(data, source)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(data, source), content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	out := filepath.Join(t.TempDir(), "repository")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "../../hack/render-clusterctl-repository.sh", data, ReleaseVersion, "example.test/drop-in:v1", out)
	printed, err := cmd.CombinedOutput()
	return out, string(printed), err
}

// The repositories hold every provider's components file and metadata.yaml
// where clusterctl's local repository looks for them (ClusterctlConfig
// names the same paths), the drop-in's release with the image it was given
// and Cluster API's with its release's image.
func TestRepositoryScript_WritesEveryProvidersReleaseWhereClusterctlLooks(t *testing.T) {
	binDir := capimanagement.Require(t)
	out, printed, err := renderRepository(t, binDir)
	if err != nil {
		t.Fatalf("%v: %s", err, printed)
	}
	for _, p := range releaseProviders {
		bases := []string{filepath.Join(out, "cluster-api")}
		if p.comp == Core {
			bases = append(bases, filepath.Join(out, "drop-in"))
		}
		for _, base := range bases {
			for _, f := range []string{p.path(base), filepath.Join(filepath.Dir(p.path(base)), "metadata.yaml")} {
				if info, err := os.Stat(f); err != nil || info.Size() == 0 {
					t.Errorf("%s: missing or empty (%v)", f, err)
				}
			}
		}
	}
	core, _ := os.ReadFile(coreProvider.path(filepath.Join(out, "cluster-api")))
	dropIn, _ := os.ReadFile(coreProvider.path(filepath.Join(out, "drop-in")))
	if !strings.Contains(string(core), "image: registry.k8s.io/cluster-api/cluster-api-controller:"+ReleaseVersion) ||
		!strings.Contains(string(dropIn), "image: example.test/drop-in:v1") {
		t.Error("the core release does not run Cluster API's released image, or ours does not run the drop-in's")
	}
}

// A components file or a metadata.yaml missing from what the script reads
// fails it, naming the file, and leaves no repository behind.
func TestRepositoryScript_AMissingComponentsFileOrMetadataFailsNamingIt(t *testing.T) {
	binDir := capimanagement.Require(t)
	for _, missing := range []string{
		filepath.Join(Infrastructure.Name, "components.yaml"),
		filepath.Join(Bootstrap.Name, "metadata.yaml"),
	} {
		t.Run(missing, func(t *testing.T) {
			out, printed, err := renderRepository(t, binDir, missing)
			if err == nil {
				t.Fatalf("the script succeeded without %s", missing)
			}
			if !strings.Contains(printed, missing+" is missing") {
				t.Errorf("the script failed with %q, want it to name %s", printed, missing)
			}
			for _, left := range []string{out, out + ".tmp"} {
				if _, err := os.Stat(left); !os.IsNotExist(err) {
					t.Errorf("%s was left behind (%v)", left, err)
				}
			}
		})
	}
}
