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

package topologyresponses

import (
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

// scaleClusterRequest is a GeneratePatches request shaped like the one
// Cluster API's topology controller sends for a Cluster of the
// in-memory-scale flavor (docs/scale): its five templates, the builtin
// variables of the Cluster and, per item, of the control plane or the
// MachineDeployment. The objects follow the in-memory ClusterClass's
// templates as the topology controller fills them in.
func scaleClusterRequest(b *testing.B, cluster string) *runtimehooksv1.GeneratePatchesRequest {
	b.Helper()
	meta := func(name string) map[string]any {
		return map[string]any{
			"name": name, "namespace": "default",
			"labels": map[string]any{
				"cluster.x-k8s.io/cluster-name":   cluster,
				"topology.cluster.x-k8s.io/owned": "",
			},
			"annotations": map[string]any{
				"cluster.x-k8s.io/cloned-from-name":      name + "-template",
				"cluster.x-k8s.io/cloned-from-groupkind": "DevMachineTemplate.infrastructure.cluster.x-k8s.io",
			},
		}
	}
	provisioning := map[string]any{"startupDuration": "2s", "startupJitter": "0.2"}
	machineTemplate := func(name string) map[string]any {
		return map[string]any{
			"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "DevMachineTemplate",
			"metadata": meta(name),
			"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"backend": map[string]any{"inMemory": map[string]any{
				"vm":        map[string]any{"provisioning": map[string]any{"startupDuration": "10s", "startupJitter": "0.2"}},
				"node":      map[string]any{"provisioning": provisioning},
				"apiServer": map[string]any{"provisioning": provisioning},
				"etcd":      map[string]any{"provisioning": provisioning},
			}}}}},
		}
	}
	builtinCluster := map[string]any{
		"name": cluster, "namespace": "default", "uid": "uid-" + cluster,
		"metadata": map[string]any{"labels": map[string]any{"cluster.x-k8s.io/cluster-name": cluster}},
		"topology": map[string]any{"version": "v1.36.4", "class": "in-memory", "classNamespace": "default"},
		"network":  map[string]any{"serviceDomain": "cluster.local", "services": []any{"10.128.0.0/12"}, "pods": []any{"192.168.0.0/16"}},
	}
	controlPlane := map[string]any{"version": "v1.36.4", "name": cluster + "-cp", "replicas": 1,
		"machineTemplate": map[string]any{"infrastructureRef": map[string]any{"name": cluster + "-cp-infra"}}}
	machineDeployment := map[string]any{"version": "v1.36.4", "class": "default-worker", "name": cluster + "-md-0", "topologyName": "md-0", "replicas": 3,
		"bootstrap":      map[string]any{"configRef": map[string]any{"name": cluster + "-md-0-bootstrap"}},
		"infrastructure": map[string]any{"machineTemplate": map[string]any{"infrastructureRef": map[string]any{"name": cluster + "-md-0-infra"}}}}

	raw := func(v any) []byte {
		encoded, err := json.Marshal(v)
		if err != nil {
			b.Fatal(err)
		}
		return encoded
	}
	builtin := func(v map[string]any) []runtimehooksv1.Variable {
		return []runtimehooksv1.Variable{{Name: "builtin", Value: apiextensionsv1.JSON{Raw: raw(v)}}}
	}
	item := func(holderKind, holderName, fieldPath string, object map[string]any, variables []runtimehooksv1.Variable) runtimehooksv1.GeneratePatchesRequestItem {
		return runtimehooksv1.GeneratePatchesRequestItem{
			UID:             types.UID(holderName + "/" + fieldPath),
			HolderReference: runtimehooksv1.HolderReference{APIVersion: "cluster.x-k8s.io/v1beta2", Kind: holderKind, Namespace: "default", Name: holderName, FieldPath: fieldPath},
			Object:          runtime.RawExtension{Raw: raw(object)},
			Variables:       variables,
		}
	}
	return &runtimehooksv1.GeneratePatchesRequest{
		Variables: builtin(map[string]any{"cluster": builtinCluster}),
		Items: []runtimehooksv1.GeneratePatchesRequestItem{
			item("Cluster", cluster, "spec.infrastructureRef", map[string]any{
				"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "DevCluster", "metadata": meta(cluster),
				"spec": map[string]any{"backend": map[string]any{"inMemory": map[string]any{}}},
			}, nil),
			item("Cluster", cluster, "spec.controlPlaneRef", map[string]any{
				"apiVersion": "controlplane.cluster.x-k8s.io/v1beta2", "kind": "KubeadmControlPlane", "metadata": meta(cluster + "-cp"),
				"spec": map[string]any{"version": "v1.36.4", "replicas": 1, "kubeadmConfigSpec": map[string]any{},
					"machineTemplate": map[string]any{"spec": map[string]any{"infrastructureRef": map[string]any{"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DevMachineTemplate", "name": cluster + "-cp-infra"}}}},
			}, builtin(map[string]any{"controlPlane": controlPlane})),
			item("KubeadmControlPlane", cluster+"-cp", "spec.machineTemplate.spec.infrastructureRef", machineTemplate(cluster+"-cp-infra"),
				builtin(map[string]any{"controlPlane": controlPlane})),
			item("MachineDeployment", cluster+"-md-0", "spec.template.spec.bootstrap.configRef", map[string]any{
				"apiVersion": "bootstrap.cluster.x-k8s.io/v1beta2", "kind": "KubeadmConfigTemplate", "metadata": meta(cluster + "-md-0-bootstrap"),
				"spec": map[string]any{"template": map[string]any{"spec": map[string]any{}}},
			}, builtin(map[string]any{"machineDeployment": machineDeployment})),
			item("MachineDeployment", cluster+"-md-0", "spec.template.spec.infrastructureRef", machineTemplate(cluster+"-md-0-infra"),
				builtin(map[string]any{"machineDeployment": machineDeployment})),
		},
	}
}

// BenchmarkCache_GeneratePatches measures what the response cache adds to
// one GeneratePatches call in bytes and allocations, beside what every call
// costs anyway: encoding the request for the wire ("encode request", which
// Cluster API's client and ours both do). "key only" is building the key;
// "not opted in" is the drop-in without the cache; "miss and store" is a
// call the extension answers, the answer then kept (a copy of it); "hit"
// is a call answered from memory (a copy rewritten onto the new request).
// The answers here are one small patch per item: larger answers cost more
// to copy.
func BenchmarkCache_GeneratePatches(b *testing.B) {
	req := scaleClusterRequest(b, "scale-1")
	other := scaleClusterRequest(b, "scale-2")
	encoded, err := json.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	answers := map[*runtimehooksv1.GeneratePatchesRequest]*runtimehooksv1.GeneratePatchesResponse{
		req: patchesFor(req), other: patchesFor(other),
	}
	// lookupLoop looks the two requests up in turn, storing the answer of
	// each miss when store is set. A lookup that does not end as wantHit,
	// or that keyed the request when keyed is false or did not when it is
	// true (a config not opted in, or a request the cache bypasses),
	// fails the benchmark.
	lookupLoop := func(b *testing.B, c *Cache, store, wantHit, keyed bool) {
		b.Helper()
		b.SetBytes(int64(len(encoded)))
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			r := req
			if i%2 == 1 {
				r = other
			}
			p, hit := c.Lookup(call, r, &runtimehooksv1.GeneratePatchesResponse{})
			if hit != wantHit || p.ok != keyed {
				b.Fatalf("lookup %d: hit %t, keyed %t; want %t, %t", i, hit, p.ok, wantHit, keyed)
			}
			if store {
				c.Store(p, answers[r])
			}
		}
	}

	b.Run("encode request", func(b *testing.B) {
		b.SetBytes(int64(len(encoded)))
		b.ReportAllocs()
		for range b.N {
			if _, err := json.Marshal(req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("key only", func(b *testing.B) {
		// normalise alone: what every lookup of an opted-in config pays
		// before the cache is even consulted.
		b.SetBytes(int64(len(encoded)))
		b.ReportAllocs()
		for range b.N {
			if _, err := normalise(call, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("not opted in", func(b *testing.B) {
		lookupLoop(b, New(Options{}), true, false, false)
	})
	b.Run("miss and store", func(b *testing.B) {
		// One entry and two requests taking turns: every lookup misses and
		// every store evicts the other answer.
		c := New(Options{MaxEntries: 1})
		c.SetMaxAge(call.ExtensionConfig, time.Hour)
		lookupLoop(b, c, true, false, true)
		if entries, _ := c.Len(); entries != 1 {
			b.Fatalf("the cache holds %d answers, want the last one", entries)
		}
	})
	b.Run("hit", func(b *testing.B) {
		c := New(Options{})
		c.SetMaxAge(call.ExtensionConfig, time.Hour)
		for _, r := range []*runtimehooksv1.GeneratePatchesRequest{req, other} {
			p, _ := c.Lookup(call, r, &runtimehooksv1.GeneratePatchesResponse{})
			c.Store(p, answers[r])
		}
		lookupLoop(b, c, false, true, true)
	})
}

// BenchmarkCache_HeldUnderChurn measures what the cache holds after an hour
// of the churn a scale run makes: 200 Clusters, each of whose
// GeneratePatches requests changes once a minute as it progresses, so that
// no answer is asked for again. The max age is 10 minutes, as in the scale
// runs. It reports the answers held, their weight as the cache counts it,
// and the live heap the cache keeps, after a GC, over an empty one; its
// time is mostly building the requests.
func BenchmarkCache_HeldUnderChurn(b *testing.B) {
	const (
		clusters = 200
		minutes  = 60
		maxAge   = 10 * time.Minute
	)
	liveHeap := func() uint64 {
		// Twice: the first leaves sync.Pool's victim buffers live.
		goruntime.GC()
		goruntime.GC()
		var m goruntime.MemStats
		goruntime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var held int
	var weight int64
	var kept uint64
	for b.Loop() {
		b.StopTimer()
		clk := &clock{now: time.Unix(1000, 0)}
		base := liveHeap()
		c := New(Options{Now: clk.Now})
		c.SetMaxAge(call.ExtensionConfig, maxAge)
		b.StartTimer()
		for minute := range minutes {
			for cluster := range clusters {
				req := scaleClusterRequest(b, fmt.Sprintf("scale-%03d", cluster))
				step, err := json.Marshal(minute)
				if err != nil {
					b.Fatal(err)
				}
				req.Variables = append(req.Variables, runtimehooksv1.Variable{Name: "step", Value: apiextensionsv1.JSON{Raw: step}})
				p, hit := c.Lookup(call, req, &runtimehooksv1.GeneratePatchesResponse{})
				if hit {
					b.Fatalf("minute %d, cluster %d: a changed request hit", minute, cluster)
				}
				c.Store(p, patchesFor(req))
			}
			clk.Add(time.Minute)
		}
		b.StopTimer()
		held, weight = c.Len()
		// Only the last 10 minutes' answers can be served.
		if want := clusters * int(maxAge/time.Minute); held != want {
			b.Fatalf("%d answers held after an hour, want the last max age's %d", held, want)
		}
		kept = 0
		if heap := liveHeap(); heap > base {
			kept = heap - base
		}
		goruntime.KeepAlive(c)
		b.StartTimer()
	}
	b.ReportMetric(float64(held), "answers-held")
	b.ReportMetric(float64(weight)/(1<<20), "weight-MiB")
	b.ReportMetric(float64(kept)/(1<<20), "heap-MiB")
}
