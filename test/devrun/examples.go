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
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/yamlobjects"
)

// classReadyTimeout bounds the wait for a Cluster's ClusterClass to have
// its variables; the Cluster is created either way.
const classReadyTimeout = 2 * time.Minute

// applyExamples creates every object of the *.yaml files in dir, in file
// name order, on the fresh management cluster. An ExtensionConfig whose URL
// is a key of urls is pointed at its value. A Cluster is created once its
// ClusterClass has its variables: Cluster API's webhook then defaults and
// checks the Cluster's variables against them. It returns the objects
// created, by objectKey, and one line per failure, naming the file, and
// goes on with the rest.
func applyExamples(ctx context.Context, c client.Client, dir string, urls map[string]string) (map[string]bool, []string) {
	applied := map[string]bool{}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return applied, []string{err.Error()}
	}
	if len(files) == 0 {
		return applied, []string{fmt.Sprintf("no *.yaml in %s", dir)}
	}
	sort.Strings(files)
	var failures []string
	for _, file := range files {
		if ctx.Err() != nil {
			break // Ctrl-C: what is left is not worth reporting
		}
		objects, err := yamlobjects.ReadFile(file)
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", file, err))
		}
		for _, u := range objects {
			pointAtExtension(u, urls)
			if u.GetKind() == "Cluster" {
				if err := waitForClass(ctx, c, u); err != nil {
					failures = append(failures, fmt.Sprintf("%s: Cluster %s: %v; creating it all the same", file, objectName(u), err))
				}
			}
			if err := c.Create(ctx, u); err != nil {
				failures = append(failures, fmt.Sprintf("%s: %s %s: %v", file, u.GetKind(), objectName(u), err))
				continue
			}
			applied[objectKey(u.GetKind(), u.GetNamespace(), u.GetName())] = true
		}
	}
	return applied, failures
}

// objectKey names an object in applyExamples' answer.
func objectKey(kind, namespace, name string) string {
	return kind + " " + namespace + "/" + name
}

// pointAtExtension rewrites an ExtensionConfig's URL that is a key of urls
// to its value.
func pointAtExtension(u *unstructured.Unstructured, urls map[string]string) {
	if u.GetKind() != "ExtensionConfig" {
		return
	}
	current, _, _ := unstructured.NestedString(u.Object, "spec", "clientConfig", "url")
	if url, ok := urls[current]; ok && url != current {
		_ = unstructured.SetNestedField(u.Object, url, "spec", "clientConfig", "url")
	}
}

// waitForClass waits until the ClusterClass a Cluster names has its
// variables at its generation, for at most classReadyTimeout.
func waitForClass(ctx context.Context, c client.Client, cluster *unstructured.Unstructured) error {
	name, _, _ := unstructured.NestedString(cluster.Object, "spec", "topology", "classRef", "name")
	namespace, _, _ := unstructured.NestedString(cluster.Object, "spec", "topology", "classRef", "namespace")
	if namespace == "" {
		namespace = cluster.GetNamespace()
	}
	if name == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, classReadyTimeout)
	defer cancel()
	why := "not found"
	for {
		cc := &clusterv1.ClusterClass{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cc); err == nil {
			ready := meta.FindStatusCondition(cc.Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition)
			switch {
			case ready == nil:
				why = "not reconciled yet"
			case ready.Status == "True" && ready.ObservedGeneration == cc.Generation:
				return nil
			default:
				why = fmt.Sprintf("VariablesReady %s (%s: %s)", ready.Status, ready.Reason, ready.Message)
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("ClusterClass %s/%s has no variables after %s: %s", namespace, name, classReadyTimeout, why)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func objectName(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetName()
	}
	return u.GetNamespace() + "/" + u.GetName()
}
