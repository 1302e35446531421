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

package extensionindex

import (
	"context"
	"fmt"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Index names on ClusterClass.
const (
	// ByExtensionConfig indexes ClusterClasses by every ExtensionConfig name
	// they reference.
	ByExtensionConfig = "runtime.cluster.x-k8s.io/extensionconfig"
	// ByHandler indexes ClusterClasses by every full handler name they
	// reference.
	ByHandler = "runtime.cluster.x-k8s.io/handler"
)

// IndexClusterClasses registers both indexes with a manager's field indexer.
func IndexClusterClasses(ctx context.Context, indexer client.FieldIndexer) error {
	if err := indexer.IndexField(ctx, &clusterv1.ClusterClass{}, ByExtensionConfig, extensionConfigKeys); err != nil {
		return fmt.Errorf("index ClusterClasses by ExtensionConfig: %w", err)
	}
	if err := indexer.IndexField(ctx, &clusterv1.ClusterClass{}, ByHandler, handlerKeys); err != nil {
		return fmt.Errorf("index ClusterClasses by handler: %w", err)
	}
	return nil
}

func extensionConfigKeys(obj client.Object) []string {
	cc, ok := obj.(*clusterv1.ClusterClass)
	if !ok {
		return nil
	}
	return ExtensionConfigNames(cc)
}

func handlerKeys(obj client.Object) []string {
	cc, ok := obj.(*clusterv1.ClusterClass)
	if !ok {
		return nil
	}
	return HandlerNames(cc)
}
