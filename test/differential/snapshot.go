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

package differential

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Snapshot is what a manager wrote, flattened to one value per field path,
// such as `ClusterClass team-a/discovered .status.conditions[VariablesReady].reason`.
// Values are JSON or plain text, comparable as strings; times and UIDs,
// which differ between any two runs, are left out.
type Snapshot map[string]string

// messageSuffix ends the paths of condition messages: reported, never
// compared, since wording may differ.
const messageSuffix = ".message"

// Take reads the fixture's ExtensionConfigs, ClusterClasses and templates.
func Take(ctx context.Context, c client.Reader, f *Fixture) (Snapshot, error) {
	s := Snapshot{}
	for _, want := range f.ExtensionConfigs {
		ext := &runtimev1.ExtensionConfig{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(want), ext); err != nil {
			return nil, err
		}
		prefix := "ExtensionConfig " + ext.Name + " .status"
		s.put(prefix+".handlers", ext.Status.Handlers)
		s.conditions(prefix+".conditions", ext.Status.Conditions, ext.Generation)
		if d := ext.Status.Deprecated; d != nil && d.V1Beta1 != nil {
			s.v1beta1Conditions(prefix+".deprecated.v1beta1.conditions", d.V1Beta1.Conditions)
		}
	}
	for _, want := range f.ClusterClasses {
		cc := &clusterv1.ClusterClass{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(want), cc); err != nil {
			return nil, err
		}
		prefix := "ClusterClass " + cc.Namespace + "/" + cc.Name + " .status"
		s.put(prefix+".variables", cc.Status.Variables)
		s[prefix+".observedGeneration"] = relativeGeneration(cc.Status.ObservedGeneration, cc.Generation)
		s.conditions(prefix+".conditions", cc.Status.Conditions, cc.Generation)
		if d := cc.Status.Deprecated; d != nil && d.V1Beta1 != nil {
			s.v1beta1Conditions(prefix+".deprecated.v1beta1.conditions", d.V1Beta1.Conditions)
		}
	}
	for _, want := range f.Templates {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(want.GroupVersionKind())
		if err := c.Get(ctx, client.ObjectKeyFromObject(want), u); err != nil {
			return nil, err
		}
		owners := make([]string, 0, len(u.GetOwnerReferences()))
		for _, o := range u.GetOwnerReferences() {
			owners = append(owners, fmt.Sprintf("%s %s %s controller=%s blockOwnerDeletion=%s",
				o.APIVersion, o.Kind, o.Name, boolText(o.Controller), boolText(o.BlockOwnerDeletion)))
		}
		sort.Strings(owners)
		s.put("Template "+u.GetNamespace()+"/"+u.GetKind()+"/"+u.GetName()+" .metadata.ownerReferences", owners)
	}
	return s, nil
}

func (s Snapshot) put(path string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		data = []byte(fmt.Sprintf("unencodable: %v", err))
	}
	s[path] = string(data)
}

// conditions records each condition's status, reason and observedGeneration
// (relative to the object's generation), its message apart, and the order
// of the types.
func (s Snapshot) conditions(prefix string, conditions []metav1.Condition, generation int64) {
	types := make([]string, 0, len(conditions))
	for _, c := range conditions {
		types = append(types, c.Type)
		at := prefix + "[" + c.Type + "]"
		s[at+".status"] = string(c.Status)
		s[at+".reason"] = c.Reason
		s[at+".observedGeneration"] = relativeGeneration(c.ObservedGeneration, generation)
		s[at+messageSuffix] = c.Message
	}
	s[prefix+" (order)"] = strings.Join(types, ",")
}

func (s Snapshot) v1beta1Conditions(prefix string, conditions clusterv1.Conditions) {
	types := make([]string, 0, len(conditions))
	for _, c := range conditions {
		types = append(types, string(c.Type))
		at := prefix + "[" + string(c.Type) + "]"
		s[at+".status"] = string(c.Status)
		s[at+".severity"] = string(c.Severity)
		s[at+".reason"] = c.Reason
		s[at+messageSuffix] = c.Message
	}
	s[prefix+" (order)"] = strings.Join(types, ",")
}

// relativeGeneration says how an observedGeneration relates to the
// object's generation, which is all two runs can share.
func relativeGeneration(observed, generation int64) string {
	switch observed {
	case 0:
		return "unset"
	case generation:
		return "current"
	default:
		return fmt.Sprintf("behind by %d", generation-observed)
	}
}

func boolText(b *bool) string {
	if b == nil {
		return "unset"
	}
	return fmt.Sprint(*b)
}
