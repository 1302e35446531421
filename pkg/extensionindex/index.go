package extensionindex

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
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

// ClusterClassesReferencing returns requests for the ClusterClasses whose
// index entry under indexName matches any of keys, each once. The reader is
// the manager's cache: no apiserver call, and cost proportional to the
// referencing ClusterClasses, not to all of them.
func ClusterClassesReferencing(ctx context.Context, reader client.Reader, indexName string, keys ...string) ([]reconcile.Request, error) {
	seen := map[types.NamespacedName]struct{}{}
	var requests []reconcile.Request
	for _, key := range keys {
		list := &clusterv1.ClusterClassList{}
		if err := reader.List(ctx, list, client.MatchingFields{indexName: key}); err != nil {
			return nil, fmt.Errorf("list ClusterClasses by %s=%s: %w", indexName, key, err)
		}
		for i := range list.Items {
			name := types.NamespacedName{Namespace: list.Items[i].Namespace, Name: list.Items[i].Name}
			if _, ok := seen[name]; ok {
				continue
			}
			seen[name] = struct{}{}
			requests = append(requests, reconcile.Request{NamespacedName: name})
		}
	}
	return requests, nil
}
