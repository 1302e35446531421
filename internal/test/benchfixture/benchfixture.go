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

package benchfixture

import (
	"context"
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/minimalclass"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// TierLabel splits namespaces into tiers "a" and "b"; an ExtensionConfig
// with a selector admits one tier, so relabelling a namespace flips it.
const TierLabel = "bench.runtime.cluster.x-k8s.io/tier"

// Tier is the tier of the i-th namespace: "a" and "b" in turn.
func Tier(i int) string {
	if i%2 == 1 {
		return "b"
	}
	return "a"
}

// OtherTier is the tier a relabelled namespace moves to.
func OtherTier(tier string) string {
	if tier == "a" {
		return "b"
	}
	return "a"
}

// TierSelector admits the namespaces of one tier.
func TierSelector(tier string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{TierLabel: tier}}
}

// StringVariable is an optional variable of type string, as the sample
// extensions answer. It says required: false, as extensions built with
// Cluster API's SDK do: Cluster API refuses to publish a discovered
// variable that leaves it out (its status write fails the CRD's schema).
func StringVariable(name string) clusterv1.ClusterClassVariable {
	return clusterv1.ClusterClassVariable{
		Name:     name,
		Required: ptr.To(false),
		Schema:   clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{Type: "string"}},
	}
}

// ClusterClass is a minimal ClusterClass with one patch per config, each
// calling that config's GeneratePatches and DiscoverVariables handlers
// with settings.
func ClusterClass(namespace, name string, settings map[string]string, configs ...string) *clusterv1.ClusterClass {
	cc := minimalclass.ClusterClass(namespace, name)
	for _, config := range configs {
		cc.Spec.Patches = append(cc.Spec.Patches, clusterv1.ClusterClassPatch{
			Name: PatchName(config),
			External: &clusterv1.ExternalPatchDefinition{
				GeneratePatchesExtension:   registration.FullHandlerName(sampleextension.GeneratePatchesHandler, config),
				DiscoverVariablesExtension: registration.FullHandlerName(sampleextension.DiscoverVariablesHandler, config),
				Settings:                   settings,
			},
		})
	}
	return cc
}

// PatchName names the external patch a fixture ClusterClass has for
// config: status.variables names it as the source of what config's
// extension discovers.
func PatchName(config string) string { return "patch-" + config }

// CreateClusterClasses creates n ClusterClasses, each with its own
// templates, with a few workers; build returns the i-th. It returns the
// first error.
func CreateClusterClasses(ctx context.Context, c client.Client, n int, build func(i int) *clusterv1.ClusterClass) error {
	work := make(chan int)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				cc := build(i)
				if err := minimalclass.CreateWithOwnTemplates(ctx, c, cc); err != nil {
					once.Do(func() { first = fmt.Errorf("create ClusterClass %s/%s: %w", cc.Namespace, cc.Name, err) })
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	return first
}
