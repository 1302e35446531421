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

package scanmapping

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// Map is Cluster API v1.14's mapping from one ExtensionConfig
// object to ClusterClasses, the baseline we measure against: list every
// ClusterClass from the cache, read each one's Namespace to test the
// config's namespaceSelector, and enqueue those whose
// discoverVariablesExtension names the config. Cluster API runs it for
// every event, on the old and the new object of an update. A nil
// namespaceSelector admits no namespace, as Cluster API's mapping reads
// it (registration.Selector).
func Map(ctx context.Context, reader client.Reader, ext *runtimev1.ExtensionConfig) ([]reconcile.Request, error) {
	selector, err := registration.Selector(ext.Spec.NamespaceSelector)
	if err != nil {
		return nil, err
	}
	list := &clusterv1.ClusterClassList{}
	if err := reader.List(ctx, list); err != nil {
		return nil, err
	}
	var requests []reconcile.Request
	for i := range list.Items {
		cc := &list.Items[i]
		ns := &corev1.Namespace{}
		if err := reader.Get(ctx, client.ObjectKey{Name: cc.Namespace}, ns); err != nil {
			return nil, err
		}
		if !selector.Matches(labels.Set(ns.Labels)) {
			continue
		}
		for _, patch := range cc.Spec.Patches {
			if patch.External == nil || patch.External.DiscoverVariablesExtension == "" {
				continue
			}
			if config, ok := registration.ExtensionConfigOf(patch.External.DiscoverVariablesExtension); ok && config == ext.Name {
				requests = append(requests, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: cc.Namespace, Name: cc.Name}})
				break
			}
		}
	}
	return requests, nil
}
