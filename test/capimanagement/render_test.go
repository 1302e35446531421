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
	"context"
	"strings"
	"testing"
)

// clusterctl's processor renders Cluster API's templates, and a variable
// without a value or a default fails the render, naming the variable.
func TestRender_FailsOnAnUnsetVariableNamingIt(t *testing.T) {
	binDir := Require(t)
	ctx := context.Background()
	vars, err := E2EVariables(binDir)
	if err != nil {
		t.Fatal(err)
	}
	if vars["KUBERNETES_VERSION_UPGRADE_FROM"] == "" {
		t.Fatalf("Cluster API's e2e variables lack KUBERNETES_VERSION_UPGRADE_FROM: %v", vars)
	}
	if _, err := Render(ctx, binDir, ClusterTemplate, vars); err == nil || !strings.Contains(err.Error(), "CLUSTER_NAME") {
		t.Errorf("render without CLUSTER_NAME: %v, want an error naming it", err)
	}
	for name, value := range map[string]string{"CLUSTER_NAME": "c", "NAMESPACE": "ns", "CONTROL_PLANE_MACHINE_COUNT": "1", "WORKER_MACHINE_COUNT": "1"} {
		vars[name] = value
	}
	objects, err := Render(ctx, binDir, ClusterTemplate, vars)
	if err != nil {
		t.Fatal(err)
	}
	if len(objects) != 1 || objects[0].GetKind() != "Cluster" || objects[0].GetName() != "c" || objects[0].GetNamespace() != "ns" {
		t.Fatalf("rendered %d objects, want the Cluster c in ns", len(objects))
	}
	// A nested default: the class's namespace defaults to the Cluster's.
	if ns := objects[0].Object["spec"].(map[string]any)["topology"].(map[string]any)["classRef"].(map[string]any)["namespace"]; ns != "ns" {
		t.Errorf("classRef.namespace = %v, want the nested default ns", ns)
	}
}

// The in-memory ClusterClass names the test extension's handlers through
// the ExtensionConfig's name, whose own default would be kept quoted.
func TestInMemoryClusterClass_NamesTheExtensionConfigsHandlers(t *testing.T) {
	binDir := Require(t)
	templates, class, err := InMemoryClusterClass(context.Background(), binDir, "ext", "ns")
	if err != nil {
		t.Fatal(err)
	}
	if class.Name != InMemoryClassName || class.Namespace != "ns" {
		t.Errorf("ClusterClass %s/%s, want ns/%s", class.Namespace, class.Name, InMemoryClassName)
	}
	if len(class.Spec.Patches) != 1 || class.Spec.Patches[0].External == nil ||
		class.Spec.Patches[0].External.DiscoverVariablesExtension != "discover-variables.ext" {
		t.Errorf("patches %+v, want one external patch using discover-variables.ext", class.Spec.Patches)
	}
	if len(templates) != 5 {
		t.Errorf("%d templates, want the 5 the ClusterClass references", len(templates))
	}
	for _, u := range templates {
		if u.GetNamespace() != "ns" {
			t.Errorf("%s %s in namespace %q, want ns", u.GetKind(), u.GetName(), u.GetNamespace())
		}
	}
}
