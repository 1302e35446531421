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
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scanmapping"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
)

// The benchmarks run the mapping against controller-runtime's real
// informer cache (the same reader a manager hands controllers). Only the
// informers' source is replaced: they list pre-built objects from memory
// instead of an apiserver, so the numbers measure the lookup, not etcd.

// The informers log through controller-runtime's root logger.
func init() { ctrllog.SetLogger(logr.Discard()) }

const (
	namespaces  = 100
	referencing = 10 // ClusterClasses that reference the changed handler
	target      = "ext-target"
)

// fixture builds n ClusterClasses with three references each; exactly
// `referencing` of them use the target config's DiscoverVariables handler,
// the rest are spread over 50 other configs.
func fixture(n int) ([]clusterv1.ClusterClass, []corev1.Namespace) {
	ccs := make([]clusterv1.ClusterClass, n)
	for i := range ccs {
		discover := fmt.Sprintf("vars.ext-%d", i%50)
		if i < referencing {
			discover = "vars." + target
		}
		ccs[i] = clusterv1.ClusterClass{
			ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("ns-%d", i%namespaces), Name: fmt.Sprintf("cc-%d", i), ResourceVersion: "1"},
			Spec: clusterv1.ClusterClassSpec{Patches: []clusterv1.ClusterClassPatch{{
				Name: "external",
				External: &clusterv1.ExternalPatchDefinition{
					GeneratePatchesExtension:   fmt.Sprintf("gen.ext-%d", (i+1)%50),
					ValidateTopologyExtension:  fmt.Sprintf("val.ext-%d", (i+2)%50),
					DiscoverVariablesExtension: discover,
					Settings:                   map[string]string{"flavour": "default"},
				},
			}}},
		}
	}
	nss := make([]corev1.Namespace, namespaces)
	for i := range nss {
		nss[i] = corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("ns-%d", i), ResourceVersion: "1", Labels: map[string]string{"team": "a"}}}
	}
	return ccs, nss
}

// memoryListWatch serves a fixed list and a watch that never fires. It
// declares that it cannot stream the initial list through the watch, so
// the reflector lists instead.
func memoryListWatch(list apiruntime.Object) toolscache.ListerWatcher {
	return memoryLW{&toolscache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (apiruntime.Object, error) {
			return list.DeepCopyObject(), nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return watch.NewFake(), nil },
	}}
}

type memoryLW struct{ *toolscache.ListWatch }

func (memoryLW) IsWatchListSemanticsUnSupported() bool { return true }

// startCache starts a controller-runtime cache over the fixture, with the
// extensionindex indexes when indexed is true.
func startCache(b *testing.B, n int, indexed bool) client.Reader {
	b.Helper()
	ccs, nss := fixture(n)
	scheme := apiruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	if err := clusterv1.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(clusterv1.GroupVersion.WithKind("ClusterClass"), meta.RESTScopeNamespace)
	mapper.Add(corev1.SchemeGroupVersion.WithKind("Namespace"), meta.RESTScopeRoot)

	nsMeta := &metav1.PartialObjectMetadataList{}
	for _, ns := range nss {
		item := metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: ns.ObjectMeta}
		nsMeta.Items = append(nsMeta.Items, item)
	}
	lists := map[string]apiruntime.Object{
		"ClusterClass":         &clusterv1.ClusterClassList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: ccs},
		"Namespace":            &corev1.NamespaceList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: nss},
		"Namespace (metadata)": nsMeta,
	}
	c, err := ctrlcache.New(&rest.Config{Host: "https://apiserver.invalid"}, ctrlcache.Options{
		Scheme:     scheme,
		Mapper:     mapper,
		HTTPClient: http.DefaultClient,
		NewInformer: func(_ toolscache.ListerWatcher, obj apiruntime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
			kind := "ClusterClass"
			switch o := obj.(type) {
			case *corev1.Namespace:
				kind = "Namespace"
			case *metav1.PartialObjectMetadata:
				kind = o.Kind + " (metadata)"
			}
			return toolscache.NewSharedIndexInformer(memoryListWatch(lists[kind]), obj, resync, indexers)
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	if indexed {
		if err := extensionindex.IndexClusterClasses(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
	go func() { _ = c.Start(ctx) }()
	// Create the informers the mapping uses before timing starts.
	for _, obj := range []client.Object{&clusterv1.ClusterClass{}, &corev1.Namespace{}, extensionindex.NamespaceMetadata()} {
		if _, err := c.GetInformer(ctx, obj); err != nil {
			b.Fatal(err)
		}
	}
	if !c.WaitForCacheSync(ctx) {
		b.Fatal("cache did not sync")
	}
	return c
}

// targetChange is the event: one handler's timeout changes on the target
// config, whose selector admits every fixture namespace.
func targetChange() (old, new *runtimev1.ExtensionConfig) {
	old = &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: target},
		Spec: runtimev1.ExtensionConfigSpec{
			ClientConfig:      runtimev1.ClientConfig{URL: "https://ext:9443"},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}},
		},
		Status: runtimev1.ExtensionConfigStatus{Handlers: []runtimev1.ExtensionHandler{{
			Name: "vars", RequestHook: runtimev1.GroupVersionHook{APIVersion: "hooks.runtime.cluster.x-k8s.io/v1alpha1", Hook: "DiscoverVariables"},
			TimeoutSeconds: 10, FailurePolicy: runtimev1.FailurePolicyFail,
		}}},
	}
	new = old.DeepCopy()
	new.Status.Handlers[0].TimeoutSeconds = 20
	return old, new
}

func BenchmarkMapExtensionConfig(b *testing.B) {
	old, new := targetChange()
	sizes := []int{100, 1000, 10000}
	mappings := []struct {
		name    string
		indexed bool
		run     func(context.Context, client.Reader) ([]reconcile.Request, error)
	}{
		{"index", true, func(ctx context.Context, r client.Reader) ([]reconcile.Request, error) {
			return extensionindex.Mapper{Reader: r}.RequestsForExtensionConfig(ctx, old, new)
		}},
		{"scan", false, func(ctx context.Context, r client.Reader) ([]reconcile.Request, error) {
			return scanmapping.Map(ctx, r, new)
		}},
	}
	for _, m := range mappings {
		b.Run(m.name, func(b *testing.B) {
			for _, n := range sizes {
				b.Run(fmt.Sprintf("clusterclasses=%d", n), func(b *testing.B) {
					reader := startCache(b, n, m.indexed)
					ctx := context.Background()
					requests, err := m.run(ctx, reader)
					if err != nil {
						b.Fatal(err)
					}
					if len(requests) != referencing {
						b.Fatalf("mapped %d ClusterClasses, want %d", len(requests), referencing)
					}
					b.ReportAllocs()
					b.ResetTimer()
					for b.Loop() {
						if _, err := m.run(ctx, reader); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// BenchmarkIndexMemory reports the heap the two extensionindex indexes add
// to a cache of 10,000 ClusterClasses with three references each, as the
// difference between an indexed and an unindexed cache of the same objects.
func BenchmarkIndexMemory(b *testing.B) {
	const n = 10000
	heap := func(indexed bool) uint64 {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		reader := startCache(b, n, indexed)
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(reader)
		return after.HeapAlloc - before.HeapAlloc
	}
	for b.Loop() {
		plain := heap(false)
		indexed := heap(true)
		b.ReportMetric(float64(indexed)-float64(plain), "index-bytes")
		b.ReportMetric((float64(indexed)-float64(plain))/n, "index-bytes/clusterclass")
	}
}
