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
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/yamlobjects"
)

// Cluster API's own e2e templates for the in-memory provider, from its
// test module (test/e2e/data/infrastructure-docker/main), as `make
// capi-providers` copies them.
const (
	// ClusterClassTemplate is the in-memory ClusterClass and its templates,
	// with an external patch, variables and an upgrade plan from the test
	// extension.
	ClusterClassTemplate = "clusterclass-in-memory.yaml"
	// ClusterTemplate is a Cluster with a managed topology of that class.
	ClusterTemplate = "cluster-template-in-memory-topology.yaml"
	// ScaleClusterTemplate is the Cluster of Cluster API's scale e2e (its
	// in-memory-scale flavor): a managed topology of that class with one
	// MachineDeployment, md-0.
	ScaleClusterTemplate = "cluster-template-in-memory-scale.yaml"
	// InMemoryClassName is the ClusterClass ClusterClassTemplate defines.
	InMemoryClassName = "in-memory"
	// e2eConfig holds the variables Cluster API's e2e sets for them.
	e2eConfig = "docker.yaml"
)

// E2EVariables returns the variables of Cluster API's e2e configuration
// for the Docker provider (test/e2e/config/docker.yaml): the values its
// tests give the templates' variables without defaults.
func E2EVariables(binDir string) (map[string]string, error) {
	path := filepath.Join(binDir, DataDir, "templates", e2eConfig)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("Cluster API's e2e variables: %w", err)
	}
	var config struct {
		Variables map[string]string `json:"variables"`
	}
	if err := yaml.Unmarshal(data, &config); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	return config.Variables, nil
}

// Render processes one of the templates with clusterctl's own YAML
// processor (`clusterctl generate yaml`), which handles nested defaults and
// `:=`, and decodes the result. A variable the template needs that has
// neither a value in vars nor a default fails, naming it. Nothing of the
// environment reaches clusterctl but vars: no clusterctl configuration, no
// version check.
func Render(ctx context.Context, binDir, template string, vars map[string]string) ([]*unstructured.Unstructured, error) {
	return RenderFile(ctx, binDir, TemplatePath(binDir, template), vars)
}

// TemplatePath is where `make capi-providers` copies one of Cluster API's
// e2e templates.
func TemplatePath(binDir, template string) string {
	return filepath.Join(binDir, DataDir, "templates", template)
}

// RenderFile is Render for a template at any path.
func RenderFile(ctx context.Context, binDir, path string, vars map[string]string) ([]*unstructured.Unstructured, error) {
	template := filepath.Base(path)
	home, err := os.MkdirTemp("", "clusterctl-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	config := filepath.Join(home, "clusterctl.yaml")
	if err := os.WriteFile(config, []byte("{}\n"), 0o600); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, ClusterctlBinary), "generate", "yaml",
		"--from", path, "--config", config)
	cmd.Env = ClusterctlEnv(home)
	names := make([]string, 0, len(vars))
	for name := range vars {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		cmd.Env = append(cmd.Env, name+"="+vars[name])
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("clusterctl generate yaml --from %s: %w: %s", template, err, bytes.TrimSpace(stderr.Bytes()))
	}
	objects, err := yamlobjects.Read(out)
	if err != nil {
		return nil, fmt.Errorf("rendered %s: %w", template, err)
	}
	return objects, nil
}

// ClusterctlEnv is the whole environment clusterctl runs with in the lab:
// a home of its own (no user's overrides under
// $XDG_CONFIG_HOME/cluster-api/overrides replace the components under
// test, and nothing is written to root's home) and no version check (which
// would ask the Go module proxy and GitHub for clusterctl's newest
// release).
func ClusterctlEnv(home string) []string {
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "CLUSTERCTL_DISABLE_VERSIONCHECK=true", "GOPROXY=off"}
}

// InMemoryClusterClass renders Cluster API's in-memory ClusterClass
// (ClusterClassTemplate) for an ExtensionConfig of that name, into
// namespace: the templates it references, and the ClusterClass itself.
func InMemoryClusterClass(ctx context.Context, binDir, extensionConfig, namespace string) ([]*unstructured.Unstructured, *clusterv1.ClusterClass, error) {
	objects, err := Render(ctx, binDir, ClusterClassTemplate, map[string]string{"EXTENSION_CONFIG_NAME": extensionConfig})
	if err != nil {
		return nil, nil, err
	}
	var (
		templates []*unstructured.Unstructured
		class     *clusterv1.ClusterClass
	)
	for _, u := range objects {
		u.SetNamespace(namespace)
		if u.GetKind() != "ClusterClass" {
			templates = append(templates, u)
			continue
		}
		class = &clusterv1.ClusterClass{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, class); err != nil {
			return nil, nil, fmt.Errorf("rendered ClusterClass %s: %w", u.GetName(), err)
		}
	}
	if class == nil {
		return nil, nil, fmt.Errorf("rendered %s holds no ClusterClass", ClusterClassTemplate)
	}
	return templates, class, nil
}
