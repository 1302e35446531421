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

package observe

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// Metadata-only objects lose their annotations in the cache; typed ones
// keep them (a ClusterClass's paused annotation is read), and every object
// loses its managedFields.
func TestStripUnread_DropsAnnotationsOfMetadataOnlyObjectsAndManagedFieldsOfAll(t *testing.T) {
	meta := metav1.ObjectMeta{
		Name:          "x",
		Labels:        map[string]string{"kept": "yes"},
		Annotations:   map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"spec":{"files":[{"content":"secret"}]}}`},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
	}
	template := &metav1.PartialObjectMetadata{ObjectMeta: *meta.DeepCopy()}
	if _, err := stripUnread(template); err != nil {
		t.Fatal(err)
	}
	if len(template.Annotations) != 0 || len(template.ManagedFields) != 0 || template.Labels["kept"] != "yes" {
		t.Errorf("metadata-only object kept annotations %v, %d managedFields, labels %v", template.Annotations, len(template.ManagedFields), template.Labels)
	}
	cc := &clusterv1.ClusterClass{ObjectMeta: *meta.DeepCopy()}
	if _, err := stripUnread(cc); err != nil {
		t.Fatal(err)
	}
	if len(cc.Annotations) != 1 || len(cc.ManagedFields) != 0 {
		t.Errorf("ClusterClass: annotations %v, %d managedFields; want its annotations and no managedFields", cc.Annotations, len(cc.ManagedFields))
	}
}
