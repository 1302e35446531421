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

package devrun

import (
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/yamlobjects"
)

// The examples' templates are Cluster API's in-memory e2e templates in
// each namespace, and their ClusterClasses its in-memory ClusterClass but
// for the patches and the upgrade plan's handler, as their comments say:
// what the in-memory provider is tested with, not a look-alike.
func TestExamples_AreClusterAPIsInMemoryTemplatesAndClass(t *testing.T) {
	binDir := toolbin.Require(t, capimanagement.Check)
	theirs := map[string]*unstructured.Unstructured{}
	objects, err := yamlobjects.ReadFile(capimanagement.TemplatePath(binDir, capimanagement.ClusterClassTemplate))
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range objects {
		theirs[u.GetKind()+"/"+u.GetName()] = u
	}
	class := theirs["ClusterClass/"+capimanagement.InMemoryClassName]
	if class == nil {
		t.Fatalf("%s holds no ClusterClass %s", capimanagement.ClusterClassTemplate, capimanagement.InMemoryClassName)
	}
	templates, classes := map[string]int{}, 0
	for _, file := range []string{"20-templates.yaml", "30-clusterclasses.yaml"} {
		ours, err := yamlobjects.ReadFile(filepath.Join("..", "..", "examples", file))
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range ours {
			if u.GetKind() == "ClusterClass" {
				classes++
				if got, want := specWithout(u, "patches", "upgrade"), specWithout(class, "patches", "upgrade"); !reflect.DeepEqual(got, want) {
					t.Errorf("ClusterClass %s/%s differs from Cluster API's %s but for patches and upgrade:\n%v\nwant\n%v", u.GetNamespace(), u.GetName(), capimanagement.InMemoryClassName, got, want)
				}
				continue
			}
			want, ok := theirs[u.GetKind()+"/"+u.GetName()]
			if !ok {
				t.Errorf("%s %s/%s is not one of Cluster API's in-memory templates", u.GetKind(), u.GetNamespace(), u.GetName())
				continue
			}
			templates[u.GetNamespace()]++
			if !reflect.DeepEqual(u.Object["spec"], want.Object["spec"]) {
				t.Errorf("%s %s/%s differs from Cluster API's:\n%v\nwant\n%v", u.GetKind(), u.GetNamespace(), u.GetName(), u.Object["spec"], want.Object["spec"])
			}
		}
	}
	if want := len(theirs) - 1; templates["team-a"] != want || templates["team-b"] != want || classes != 3 {
		t.Errorf("templates by namespace %v and %d ClusterClasses, want %d templates in team-a and team-b, and 3 ClusterClasses", templates, classes, want)
	}
}

// specWithout is u's spec without the named fields.
func specWithout(u *unstructured.Unstructured, fields ...string) map[string]any {
	spec, _, _ := unstructured.NestedMap(u.Object, "spec")
	for _, f := range fields {
		delete(spec, f)
	}
	return spec
}
