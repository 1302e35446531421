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

package coremanager

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/capiversion"
)

// capiImage is the image clusterctl installs capi-controller-manager with.
const capiImage = "registry.k8s.io/cluster-api/cluster-api-controller:" + capiversion.Version

// installedDeployment is capi-controller-manager as clusterctl installs it:
// Cluster API v1.14.2's own manifest, read from its module, with the name,
// namespace and image its kustomization and clusterctl give it.
func installedDeployment(t *testing.T) *appsv1.Deployment {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(clusterAPIModuleDir(t), "core", "config", "manager", "manager.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	d := &appsv1.Deployment{}
	if err := yaml.Unmarshal(data, d); err != nil {
		t.Fatal(err)
	}
	d.Name, d.Namespace = "capi-controller-manager", "capi-system"
	d.Spec.Template.Spec.Containers[0].Image = capiImage
	return d
}

// clusterAPIModuleDir is where Cluster API's module, at the version the
// drop-in links, sits in the module cache.
func clusterAPIModuleDir(t *testing.T) string {
	t.Helper()
	// Cluster API's module as the drop-in links it, from the drop-in's module.
	list := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/cluster-api")
	list.Dir = "../../../cmd/core-manager"
	dir, err := list.Output()
	if err != nil {
		t.Fatalf("find Cluster API's module: %v", err)
	}
	return strings.TrimSpace(string(dir))
}

// swappedOnly checks that got is installed with the manager's image
// swapped for the drop-in's, and nothing else changed.
func swappedOnly(t *testing.T, installed, got *appsv1.Deployment) {
	t.Helper()
	if image := got.Spec.Template.Spec.Containers[0].Image; image != "core-manager:latest" {
		t.Errorf("manager image %q, want core-manager:latest", image)
	}
	want := installed.DeepCopy()
	want.Spec.Template.Spec.Containers[0].Image = got.Spec.Template.Spec.Containers[0].Image
	wantJSON, _ := json.Marshal(want)
	gotJSON, _ := json.Marshal(got)
	if string(wantJSON) != string(gotJSON) {
		t.Errorf("the swap changed more than the image:\nwant %s\ngot  %s", wantJSON, gotJSON)
	}
}

// kubectl patch applies config/core-manager/patch.yaml as a strategic
// merge patch: only the manager container's image changes.
func TestSwap_KubectlPatchChangesOnlyTheImage(t *testing.T) {
	installed := installedDeployment(t)
	patchYAML, err := os.ReadFile("../../../config/core-manager/patch.yaml")
	if err != nil {
		t.Fatal(err)
	}
	patch, err := yaml.YAMLToJSON(patchYAML)
	if err != nil {
		t.Fatal(err)
	}
	original, err := json.Marshal(installed)
	if err != nil {
		t.Fatal(err)
	}
	patched, err := strategicpatch.StrategicMergePatch(original, patch, appsv1.Deployment{})
	if err != nil {
		t.Fatal(err)
	}
	got := &appsv1.Deployment{}
	if err := json.Unmarshal(patched, got); err != nil {
		t.Fatal(err)
	}
	swappedOnly(t, installed, got)
}

// A kustomization holding the installed components and the
// config/core-manager component renders the same Deployment with only the
// image swapped.
func TestSwap_KustomizeComponentChangesOnlyTheImage(t *testing.T) {
	installed := installedDeployment(t)
	fs := filesys.MakeFsInMemory()
	manifest, err := yaml.Marshal(installed)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kustomization.yaml", "patch.yaml"} {
		data, err := os.ReadFile(filepath.Join("../../../config/core-manager", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := fs.WriteFile("/core-manager/"+name, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := fs.WriteFile("/install/components.yaml", manifest); err != nil {
		t.Fatal(err)
	}
	if err := fs.WriteFile("/install/kustomization.yaml", []byte("resources:\n- components.yaml\ncomponents:\n- ../core-manager\n")); err != nil {
		t.Fatal(err)
	}
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, "/install")
	if err != nil {
		t.Fatalf("kustomize build: %v", err)
	}
	if len(resources.Resources()) != 1 {
		t.Fatalf("rendered %d objects, want 1", len(resources.Resources()))
	}
	rendered, err := resources.Resources()[0].AsYAML()
	if err != nil {
		t.Fatal(err)
	}
	got := &appsv1.Deployment{}
	if err := yaml.Unmarshal(rendered, got); err != nil {
		t.Fatal(err)
	}
	swappedOnly(t, installed, got)
}

// clusterctlVariable is a ${NAME:=default} of Cluster API's manifests,
// which clusterctl replaces with the default when NAME is not set.
var clusterctlVariable = regexp.MustCompile(`\$\{[A-Z0-9_]+:=([^}]*)\}`)

// The arguments of capi-controller-manager, as clusterctl installs it from
// Cluster API v1.14.2's own manifest, start the drop-in unchanged: it gets
// past its flags and stops only at the missing cluster.
func TestSwap_TheInstalledDeploymentsArgumentsAreTakenUnchanged(t *testing.T) {
	container := installedDeployment(t).Spec.Template.Spec.Containers[0]
	if len(container.Command) != 1 || container.Command[0] != "/manager" {
		t.Fatalf("Cluster API's Deployment runs %v; make core-manager-image puts the drop-in at /manager", container.Command)
	}
	args := make([]string, 0, len(container.Args)+1)
	for _, a := range container.Args {
		args = append(args, clusterctlVariable.ReplaceAllString(a, "$1"))
	}
	if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--feature-gates=") }) {
		t.Fatalf("no --feature-gates among %v: the manifest changed shape", args)
	}
	out, code := runBinary(t, append(args, "--kubeconfig=/nonexistent/kubeconfig")...)
	if code != 1 || !strings.Contains(out, "/nonexistent/kubeconfig") {
		t.Errorf("with %v: exit %d, output:\n%s\nwant 1, stopped at the missing kubeconfig", args, code, out)
	}
}
