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
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/capiversion"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// RepositoryDir is where make clusterctl-repository writes clusterctl's
// local repositories, under bin/.
const RepositoryDir = "clusterctl-repository"

// ReleaseVersion is the version of every provider in the repositories.
const ReleaseVersion = capiversion.Version

// ImageOverride is one entry of the images: section of clusterctl's
// configuration; empty fields keep the components file's.
type ImageOverride struct {
	Repository, Name, Tag string
}

// ClusterctlConfig is a clusterctl configuration file for the node: every
// provider read from make clusterctl-repository's folders (clusterctl
// cannot reach GitHub here, nor would an air-gapped user), cert-manager
// externally provisioned, every image from the node's rsc.lab/ repository
// (the node holds Cluster API's images under the names its release gives
// them, with rsc.lab/ in front), and the flow's variables.
type ClusterctlConfig struct {
	// BinDir holds make clusterctl-repository's folders.
	BinDir string
	// DropInRelease names our own release of the core provider in
	// providers:, instead of Cluster API's.
	DropInRelease bool
	// Core, when set, is the images: override of the core provider
	// (images: cluster-api:).
	Core *ImageOverride
	// Variables are written as they are; Variables when nil.
	Variables map[string]string
}

// NodeRepository is the image repository the node holds every image in.
const NodeRepository = "rsc.lab"

// DropInOverride is the drop-in as clusterctl's images: override names it
// on the node (DropInImage): the core provider's image from the node's
// repository, by our name and tag.
var DropInOverride = &ImageOverride{Repository: NodeRepository, Name: "core-manager", Tag: "dev"}

// YAML is the configuration file's text.
func (c ClusterctlConfig) YAML() string {
	base := filepath.Join(c.BinDir, RepositoryDir, "cluster-api")
	core := base
	if c.DropInRelease {
		core = filepath.Join(c.BinDir, RepositoryDir, "drop-in")
	}
	var b strings.Builder
	b.WriteString("providers:\n")
	for _, p := range releaseProviders {
		url := p.path(base)
		if p.comp == Core {
			url = p.path(core)
		}
		fmt.Fprintf(&b, "  - name: %s\n    type: %s\n    url: file://%s\n", p.name, p.kind, url)
	}
	b.WriteString("cert-manager:\n  externallyProvisioned: \"true\"\n")
	fmt.Fprintf(&b, "images:\n  all:\n    repository: %s\n", NodeRepository)
	if o := c.Core; o != nil {
		b.WriteString("  cluster-api:\n")
		for _, f := range [][2]string{{"repository", o.Repository}, {"name", o.Name}, {"tag", o.Tag}} {
			if f[1] != "" {
				fmt.Fprintf(&b, "    %s: %s\n", f[0], f[1])
			}
		}
	}
	vars := c.Variables
	if vars == nil {
		vars = Variables
	}
	names := make([]string, 0, len(vars))
	for name := range vars {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(&b, "%s: %q\n", name, vars[name])
	}
	return b.String()
}

// InitArgs are clusterctl init's arguments for every component, each
// pinned at ReleaseVersion as clusterctl's book asks with an images:
// override.
func InitArgs() []string {
	args := []string{"init"}
	for _, p := range releaseProviders {
		args = append(args, "--"+p.flag(), p.name+":"+ReleaseVersion)
	}
	return args
}

// Clusterctl runs bin/clusterctl with the configuration file and the
// kubeconfig, in an environment of its own (capimanagement.ClusterctlEnv),
// and returns its output; a failure carries the output.
func Clusterctl(ctx context.Context, binDir, configPath, kubeconfig string, args ...string) (string, error) {
	home, err := os.MkdirTemp("", "clusterctl-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(home)
	args = append(args, "--config", configPath, "--kubeconfig", kubeconfig)
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, capimanagement.ClusterctlBinary), args...)
	cmd.Env = capimanagement.ClusterctlEnv(home)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("clusterctl %s: %w\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}

// UpgradeCoreArgs are clusterctl upgrade apply's arguments that apply the
// core provider again at ReleaseVersion, as the configuration file now
// says: the way back to Cluster API's own image.
func UpgradeCoreArgs() []string {
	return []string{"upgrade", "apply", "--core", Core.Namespace + "/" + coreProvider.name + ":" + ReleaseVersion}
}
