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
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// generatedKinds are the Clusters and what the topology controller makes
// for them from the ClusterClass, whose specs the cache must not change.
var generatedKinds = []struct{ apiVersion, kind string }{
	{"cluster.x-k8s.io/v1beta2", "Cluster"},
	{"infrastructure.cluster.x-k8s.io/v1beta2", "DevCluster"},
	{"controlplane.cluster.x-k8s.io/v1beta2", "KubeadmControlPlane"},
	{"cluster.x-k8s.io/v1beta2", "MachineDeployment"},
	{"infrastructure.cluster.x-k8s.io/v1beta2", "DevMachineTemplate"},
	{"bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfigTemplate"},
}

// Specs are normalised objects by normalised key: "Kind name", with the
// name's generated suffix removed, and the object's spec and labels as
// JSON with generated names replaced the same way.
type Specs map[string]string

// TakeSpecs reads the Clusters of namespace and the objects generated for
// them, normalised.
func TakeSpecs(ctx context.Context, c client.Reader, namespace string) (Specs, error) {
	var objects []*unstructured.Unstructured
	for _, k := range generatedKinds {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion(k.apiVersion)
		list.SetKind(k.kind + "List")
		opts := []client.ListOption{client.InNamespace(namespace)}
		if k.kind != "Cluster" {
			opts = append(opts, client.HasLabels{clusterv1.ClusterNameLabel})
		}
		if err := c.List(ctx, list, opts...); err != nil {
			return nil, fmt.Errorf("list %s: %w", k.kind, err)
		}
		for i := range list.Items {
			objects = append(objects, &list.Items[i])
		}
	}
	return NormaliseSpecs(objects)
}

// generatedSuffix is what Kubernetes' name generator appends: a dash and
// five characters of its alphabet (no vowels, no 0, 1 or 3).
var generatedSuffix = regexp.MustCompile(`-[bcdfghjklmnpqrstvwxz2456789]{5}$`)

// NormaliseSpecs keys objects by kind and name without its generated
// suffix, and keeps their spec and labels with every generated name in
// them replaced by its normalised form. The control plane endpoint's port
// is the in-memory provider's, given in creation order, so it is left out.
// Two objects whose keys clash are told apart by a digest of their
// normalised content, so that a difference still shows.
func NormaliseSpecs(objects []*unstructured.Unstructured) (Specs, error) {
	names := map[string]string{}
	for _, u := range objects {
		if u.GetKind() != "Cluster" {
			names[u.GetName()] = generatedSuffix.ReplaceAllString(u.GetName(), "")
		}
	}
	specs := Specs{}
	for _, u := range objects {
		content := map[string]any{"labels": u.GetLabels()}
		if spec, ok := u.Object["spec"].(map[string]any); ok {
			spec = replaceNames(spec, names).(map[string]any)
			delete(spec, "controlPlaneEndpoint")
			content["spec"] = spec
		}
		data, err := json.Marshal(content)
		if err != nil {
			return nil, err
		}
		name := u.GetName()
		if n, ok := names[name]; ok {
			name = n
		}
		key := u.GetKind() + " " + name
		if _, clash := specs[key]; clash {
			sum := sha256.Sum256(data)
			key += "#" + hex.EncodeToString(sum[:4])
		}
		specs[key] = string(data)
	}
	return specs, nil
}

// replaceNames copies v with every string that is a generated name
// replaced by its normalised form.
func replaceNames(v any, names map[string]string) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = replaceNames(e, names)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = replaceNames(e, names)
		}
		return out
	case string:
		if n, ok := names[v]; ok {
			return n
		}
		return v
	default:
		return v
	}
}

// DiffSpecs lists, sorted, every key that only one side has and every key
// whose content differs.
func DiffSpecs(want, got Specs) []string {
	var diffs []string
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			diffs = append(diffs, "missing: "+k)
		case g != w:
			diffs = append(diffs, fmt.Sprintf("differs: %s\n  want %s\n  got  %s", k, w, g))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, "extra: "+k)
		}
	}
	sort.Strings(diffs)
	return diffs
}
