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
	"os"
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"
)

// readmeBinDir is where docs/install.md's clusterctl.yaml has the checkout.
const readmeBinDir = "/path/to/runtime-sdk-controller/bin"

// docs/install.md gives clusterctl.yaml, clusterctl init and
// the way back with clusterctl upgrade apply exactly as the node test ran
// them.
func TestInstallDoc_GivesTheClusterctlConfigurationAndCommandTheNodeRan(t *testing.T) {
	raw, err := os.ReadFile("../../docs/install.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	config := ClusterctlConfig{BinDir: readmeBinDir, Core: DropInOverride}.YAML()
	if !strings.Contains(readme, "```yaml\n"+config+"```") {
		t.Errorf("docs/install.md has no yaml block that is the clusterctl.yaml the node ran:\n%s", config)
	}
	command := regexp.MustCompile(`\\\n\s*`).ReplaceAllString(readme, "")
	want := "clusterctl init --config clusterctl.yaml " + strings.Join(InitArgs()[1:], " ")
	if !strings.Contains(command, want) {
		t.Errorf("docs/install.md does not give %q", want)
	}
	back := "clusterctl " + strings.Join(UpgradeCoreArgs(), " ") + " --config clusterctl.yaml"
	if !strings.Contains(readme, back) {
		t.Errorf("docs/install.md does not give the way back the node ran, %q", back)
	}
	ownRelease := ClusterctlConfig{BinDir: readmeBinDir, DropInRelease: true}.YAML()
	coreEntry := ownRelease[:strings.Index(ownRelease, "  - name: kubeadm")]
	if !strings.Contains(readme, "```yaml\n"+coreEntry+"```") {
		t.Errorf("docs/install.md has no yaml block naming our core release as the node did:\n%s", coreEntry)
	}
}

// docs/install.md's CoreProvider is the one the node test has the operator
// install the drop-in from.
func TestInstallDoc_GivesTheCoreProviderTheNodeRan(t *testing.T) {
	raw, err := os.ReadFile("../../docs/install.md")
	if err != nil {
		t.Fatal(err)
	}
	want := operatorProviderWith(coreProvider, DropInImage).Object
	for _, block := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(raw), -1) {
		if !strings.Contains(block[1], "kind: CoreProvider") {
			continue
		}
		var got map[string]any
		if err := yaml.Unmarshal([]byte(block[1]), &got); err != nil {
			t.Fatalf("docs/install.md's CoreProvider: %v", err)
		}
		if !equality.Semantic.DeepEqual(got, want) {
			w, _ := yaml.Marshal(want)
			t.Errorf("docs/install.md's CoreProvider is not the one the node ran:\n%s\nwant:\n%s", block[1], w)
		}
		return
	}
	t.Error("docs/install.md has no yaml block with a CoreProvider")
}
