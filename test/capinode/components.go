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
	"path/filepath"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/capiversion"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// Component is one of Cluster API's components as the node runs it.
type Component struct {
	// Name is its folder in make capi-providers' rendering, and what
	// Scrape knows it by.
	Name string
	// Namespace and Deployment are as its components file names them.
	Namespace, Deployment string
	// Image is what its Deployment runs on the node.
	Image string
	// Prefix starts the names of its webhook Service and its Certificate,
	// as its kustomization's namePrefix makes them.
	Prefix string
}

// webhookService is the Service in front of its webhook server (for the
// test extension, of its Runtime Extension hooks).
func (c Component) webhookService() string { return c.Prefix + "webhook-service" }

// servingCert is the Certificate of its webhook server.
func (c Component) servingCert() string { return c.Prefix + "serving-cert" }

// Images on the node, as make node-images names them.
const (
	// DropInImage is the drop-in core manager's.
	DropInImage = "rsc.lab/core-manager:dev"
	// ClusterAPICoreImage is Cluster API's own core manager's.
	ClusterAPICoreImage = "rsc.lab/cluster-api-controller:" + capiversion.Version
)

// The components, in the order they are installed: the core first (its
// CRDs are the others' contract).
var (
	Core           = Component{"core", "capi-system", "capi-controller-manager", DropInImage, "capi-"}
	Bootstrap      = Component{"bootstrap-kubeadm", "capi-kubeadm-bootstrap-system", "capi-kubeadm-bootstrap-controller-manager", "rsc.lab/kubeadm-bootstrap-controller:" + capiversion.Version, "capi-kubeadm-bootstrap-"}
	ControlPlane   = Component{"control-plane-kubeadm", "capi-kubeadm-control-plane-system", "capi-kubeadm-control-plane-controller-manager", "rsc.lab/kubeadm-control-plane-controller:" + capiversion.Version, "capi-kubeadm-control-plane-"}
	Infrastructure = Component{"infrastructure-docker", "capd-system", "capd-controller-manager", "rsc.lab/capd-manager:" + capiversion.Version, "capd-"}
	TestExtension  = Component{"test-extension", "test-extension-system", "test-extension-controller-manager", "rsc.lab/test-extension:" + capiversion.Version, "test-extension-"}
	Components     = []Component{Core, Bootstrap, ControlPlane, Infrastructure, TestExtension}
)

// releaseProvider is one provider of Cluster API's release as clusterctl
// and the operator know it: its name and type (clusterctl's provider type
// is also the operator's kind), its folder and components file in make
// clusterctl-repository's repository, and its component.
type releaseProvider struct {
	name, kind  string
	label, file string
	comp        Component
}

// flag is clusterctl's flag for a provider of its kind.
func (p releaseProvider) flag() string {
	return map[string]string{
		"CoreProvider": "core", "BootstrapProvider": "bootstrap", "ControlPlaneProvider": "control-plane",
		"InfrastructureProvider": "infrastructure", "RuntimeExtensionProvider": "runtime-extension",
	}[p.kind]
}

// releaseProviders are every component's provider, the core first.
var releaseProviders = []releaseProvider{
	{"cluster-api", "CoreProvider", "cluster-api", "core-components.yaml", Core},
	{"kubeadm", "BootstrapProvider", "bootstrap-kubeadm", "bootstrap-components.yaml", Bootstrap},
	{"kubeadm", "ControlPlaneProvider", "control-plane-kubeadm", "control-plane-components.yaml", ControlPlane},
	{"docker", "InfrastructureProvider", "infrastructure-docker", "infrastructure-components-development.yaml", Infrastructure},
	{"test-extension", "RuntimeExtensionProvider", "runtime-extension-test-extension", "runtime-extension-components-development.yaml", TestExtension},
}

// coreProvider is the core's release provider.
var coreProvider = releaseProviders[0]

// path is the provider's components file under a repository's base.
func (p releaseProvider) path(base string) string {
	return filepath.Join(base, p.label, ReleaseVersion, p.file)
}

// componentsFile is where make capi-providers renders its config/default.
func (c Component) componentsFile(binDir string) string {
	return filepath.Join(binDir, capimanagement.DataDir, c.Name, "components.yaml")
}

// byScrapeName maps capiflow's names for what it scrapes to components.
var byScrapeName = map[string]Component{
	capimanagement.CoreManagerName:   Core,
	capimanagement.TestExtensionName: TestExtension,
}
