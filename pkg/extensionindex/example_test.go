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

package extensionindex_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// fakeIndexer lets the examples register the indexes on a fake client the
// way a manager's mgr.GetFieldIndexer() takes them.
type fakeIndexer struct{ builder *fake.ClientBuilder }

func (i fakeIndexer) IndexField(_ context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	i.builder.WithIndex(obj, field, extract)
	return nil
}

// exampleReader stands in for a manager's cache: ClusterClasses with the
// indexes registered, and Namespaces.
func exampleReader(objs ...client.Object) client.Reader {
	s := runtime.NewScheme()
	_ = corev1.AddToScheme(s)
	_ = clusterv1.AddToScheme(s)
	builder := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...)
	// With a manager: extensionindex.IndexClusterClasses(ctx, mgr.GetFieldIndexer())
	if err := extensionindex.IndexClusterClasses(context.Background(), fakeIndexer{builder}); err != nil {
		panic(err)
	}
	return builder.Build()
}

func usingHandler(namespace, name, handler string) *clusterv1.ClusterClass {
	return &clusterv1.ClusterClass{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: clusterv1.ClusterClassSpec{Patches: []clusterv1.ClusterClassPatch{{
			Name:     "vars",
			External: &clusterv1.ExternalPatchDefinition{DiscoverVariablesExtension: handler},
		}}},
	}
}

// Register the indexes once, then list the ClusterClasses that reference
// an ExtensionConfig, or one handler, without scanning them all.
func ExampleIndexClusterClasses() {
	reader := exampleReader(
		usingHandler("team-a", "small", registration.FullHandlerName("discover-variables", "ext")),
		usingHandler("team-b", "large", registration.FullHandlerName("discover-variables", "other")),
	)
	list := &clusterv1.ClusterClassList{}
	if err := reader.List(context.Background(), list, client.MatchingFields{extensionindex.ByExtensionConfig: "ext"}); err != nil {
		panic(err)
	}
	for _, cc := range list.Items {
		fmt.Println(cc.Namespace + "/" + cc.Name)
	}
	// Output: team-a/small
}

// Map an ExtensionConfig update to the ClusterClasses it can change: here
// its settings change, which reaches only the ClusterClasses that use its
// handler from a namespace its selector admits.
func ExampleMapper_RequestsForExtensionConfig() {
	handler := registration.FullHandlerName("discover-variables", "ext")
	reader := exampleReader(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{"team": "a"}}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-b", Labels: map[string]string{"team": "b"}}},
		usingHandler("team-a", "admitted", handler),
		usingHandler("team-b", "not-admitted", handler),
	)
	old := &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "ext"},
		Spec: runtimev1.ExtensionConfigSpec{
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}},
			Settings:          map[string]string{"flavour": "small"},
		},
		Status: runtimev1.ExtensionConfigStatus{Handlers: []runtimev1.ExtensionHandler{{
			Name:        handler,
			RequestHook: runtimev1.GroupVersionHook{APIVersion: runtimehooksv1.GroupVersion.String(), Hook: "DiscoverVariables"},
		}}},
	}
	updated := old.DeepCopy()
	updated.Spec.Settings["flavour"] = "large"

	mapper := extensionindex.Mapper{Reader: reader}
	requests, err := mapper.RequestsForExtensionConfig(context.Background(), old, updated)
	if err != nil {
		panic(err)
	}
	for _, r := range requests {
		fmt.Println(r.String())
	}
	// A label-only change, like a resync, reaches none.
	relabelled := old.DeepCopy()
	relabelled.Labels = map[string]string{"audited": "yes"}
	requests, _ = mapper.RequestsForExtensionConfig(context.Background(), old, relabelled)
	fmt.Println(len(requests), "for a label change")
	// Output:
	// team-a/admitted
	// 0 for a label change
}
