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

package scale

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// The workload's names, as Cluster API's scale e2e has them: its
// ExtensionConfig is named after the spec, "scale", and so are its
// Clusters' prefix; this run keeps every Cluster in one namespace
// (DeployClusterInSeparateNamespaces: false).
const (
	Namespace           = "scale"
	ExtensionConfigName = "scale"
	clusterPrefix       = "scale-"
	// TakeoverClusterName is the Cluster a leader change creates.
	TakeoverClusterName = clusterPrefix + "takeover"
	// The scale e2e's shape per Cluster.
	controlPlaneMachines = 1
	workerMachines       = 3
)

// Workload is what one run creates, rendered once and shared by every
// manager it runs under.
type Workload struct {
	// Classes are the in-memory ClusterClass and its copies, each with its
	// templates, ClusterClasses last.
	Classes []*unstructured.Unstructured `json:"-"`
	// Clusters are the Clusters to create, scale-00001 to scale-N.
	Clusters []*unstructured.Unstructured `json:"-"`
	// Takeover is one more Cluster of the same shape, created right after
	// a leader change's kill.
	Takeover *unstructured.Unstructured `json:"-"`
	// FromVersion and ToVersion are Cluster API's e2e upgrade versions.
	FromVersion, ToVersion string
	// ValidateTopologyHandler is the handler the ClusterClasses name for
	// ValidateTopology.
	ValidateTopologyHandler string
}

// RenderWorkload renders Cluster API's in-memory ClusterClass with the
// test extension's ValidateTopology handler added to its external patch,
// additional copies of it under other names, and clusters Clusters of the
// in-memory-scale flavor at clusterTemplate.
func RenderWorkload(ctx context.Context, binDir, clusterTemplate string, clusters, additionalClasses int) (*Workload, error) {
	vars, err := capimanagement.E2EVariables(binDir)
	if err != nil {
		return nil, err
	}
	w := &Workload{
		FromVersion:             vars["KUBERNETES_VERSION_UPGRADE_FROM"],
		ToVersion:               vars["KUBERNETES_VERSION_UPGRADE_TO"],
		ValidateTopologyHandler: "validate-topology." + ExtensionConfigName,
	}
	if w.FromVersion == "" || w.ToVersion == "" {
		return nil, fmt.Errorf("Cluster API's e2e variables lack KUBERNETES_VERSION_UPGRADE_FROM or _TO: %v", vars)
	}
	for name, value := range map[string]string{
		"EXTENSION_CONFIG_NAME":       ExtensionConfigName,
		"NAMESPACE":                   Namespace,
		"CLUSTER_NAME":                clusterPrefix + "0",
		"KUBERNETES_VERSION":          w.FromVersion,
		"CONTROL_PLANE_MACHINE_COUNT": strconv.Itoa(controlPlaneMachines),
		"WORKER_MACHINE_COUNT":        strconv.Itoa(workerMachines),
	} {
		vars[name] = value
	}
	class, err := capimanagement.Render(ctx, binDir, capimanagement.ClusterClassTemplate, vars)
	if err != nil {
		return nil, err
	}
	for _, u := range class {
		u.SetNamespace(Namespace)
		if u.GetKind() == "ClusterClass" {
			if err := AddValidateTopology(u, w.ValidateTopologyHandler); err != nil {
				return nil, err
			}
		}
	}
	if w.Classes, err = ClassCopies(class, capimanagement.InMemoryClassName, additionalClasses); err != nil {
		return nil, err
	}
	rendered, err := capimanagement.RenderFile(ctx, binDir, clusterTemplate, vars)
	if err != nil {
		return nil, err
	}
	if len(rendered) != 1 || rendered[0].GetKind() != "Cluster" {
		return nil, fmt.Errorf("%s rendered %d objects, want one Cluster", clusterTemplate, len(rendered))
	}
	for i := 1; i <= clusters; i++ {
		c := rendered[0].DeepCopy()
		c.SetName(ClusterName(i, clusters))
		w.Clusters = append(w.Clusters, c)
	}
	w.Takeover = rendered[0].DeepCopy()
	w.Takeover.SetName(TakeoverClusterName)
	return w, nil
}

// ClusterName is the i-th Cluster's name, from 1, of n, as Cluster API's
// scale e2e names them: zero-padded to at least 5 digits, so that they
// sort in creation order (scale-00001).
func ClusterName(i, n int) string {
	digits := max(len(strconv.Itoa(n)), 5)
	return fmt.Sprintf("%s%0*d", clusterPrefix, digits, i)
}

// AddValidateTopology sets validateTopologyExtension on every external
// patch of a ClusterClass that has none: the in-memory ClusterClass names
// only generatePatchesExtension and discoverVariablesExtension, so that
// without it ValidateTopology never runs.
func AddValidateTopology(class *unstructured.Unstructured, handler string) error {
	patches, found, err := unstructured.NestedSlice(class.Object, "spec", "patches")
	if err != nil || !found {
		return fmt.Errorf("ClusterClass %s: no spec.patches (%v)", class.GetName(), err)
	}
	set := 0
	for _, p := range patches {
		external, ok := p.(map[string]any)["external"].(map[string]any)
		if !ok {
			continue
		}
		if _, has := external["validateTopologyExtension"]; !has {
			external["validateTopologyExtension"] = handler
			set++
		}
	}
	if set == 0 {
		return fmt.Errorf("ClusterClass %s has no external patch to add %s to", class.GetName(), handler)
	}
	return unstructured.SetNestedSlice(class.Object, patches, "spec", "patches")
}

// ClassCopies returns the rendered class objects and additional copies of
// them, the i-th with every occurrence of className replaced by
// className-i, as Cluster API's scale e2e makes them (a byte replace over
// the whole YAML, which renames the templates too).
func ClassCopies(objects []*unstructured.Unstructured, className string, additional int) ([]*unstructured.Unstructured, error) {
	out := append([]*unstructured.Unstructured{}, objects...)
	for i := 1; i <= additional; i++ {
		for _, u := range objects {
			data, err := json.Marshal(u.Object)
			if err != nil {
				return nil, err
			}
			data = bytes.ReplaceAll(data, []byte(className), []byte(className+"-"+strconv.Itoa(i)))
			c := &unstructured.Unstructured{}
			if err := json.Unmarshal(data, &c.Object); err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	// Templates before the classes that reference them.
	var templates, classes []*unstructured.Unstructured
	for _, u := range out {
		if u.GetKind() == "ClusterClass" {
			classes = append(classes, u)
		} else {
			templates = append(templates, u)
		}
	}
	return append(templates, classes...), nil
}
