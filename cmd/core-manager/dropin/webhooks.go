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

package dropin

import (
	"context"
	"fmt"

	coreadmission "sigs.k8s.io/cluster-api/core/webhooks/admission"
	"sigs.k8s.io/cluster-api/core/webhooks/conversion"
	ctrl "sigs.k8s.io/controller-runtime"
)

// webhooks adds Cluster API's admission webhooks, and the conversion
// webhooks their types register, with the API version getter the
// conversions need.
func (a *assembly) webhooks(context.Context) error {
	conversion.SetAPIVersionGetter(apiVersionGetter(a.mgr.GetClient()))
	a.add("setting", "API version lookup of the conversion webhooks", Ours)

	c := a.mgr.GetClient()
	for _, w := range []struct {
		name string
		hook interface{ SetupWebhookWithManager(ctrl.Manager) error }
	}{
		// ClusterClass and Cluster topologies, MachinePools,
		// ClusterResourceSets and ExtensionConfigs are behind feature
		// gates: these webhooks refuse them when their gate is off.
		{"ClusterClass", &coreadmission.ClusterClass{Client: c}},
		{"Cluster", &coreadmission.Cluster{Client: c, ClusterCacheReader: a.clusterCache}},
		{"Machine", &coreadmission.Machine{}},
		{"MachineSet", &coreadmission.MachineSet{}},
		{"MachineDeployment", &coreadmission.MachineDeployment{}},
		{"MachineDrainRule", &coreadmission.MachineDrainRule{}},
		{"MachinePool", &coreadmission.MachinePool{}},
		{"ClusterResourceSet", &coreadmission.ClusterResourceSet{}},
		{"ClusterResourceSetBinding", &coreadmission.ClusterResourceSetBinding{}},
		{"MachineHealthCheck", &coreadmission.MachineHealthCheck{}},
		{"ExtensionConfig", &coreadmission.ExtensionConfig{}},
		// Reads claims uncached, so that not every claim is held in memory.
		{"IPAddress", &coreadmission.IPAddress{Client: a.mgr.GetAPIReader()}},
		{"IPAddressClaim", &coreadmission.IPAddressClaim{}},
	} {
		if err := w.hook.SetupWebhookWithManager(a.mgr); err != nil {
			return fmt.Errorf("create webhook %s: %w", w.name, err)
		}
		a.add("webhook", w.name, ClusterAPI)
	}
	return nil
}
