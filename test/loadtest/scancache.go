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

package loadtest

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
)

// startScanCache starts the informer cache the simulated scan reads:
// the ClusterClasses and Namespaces Cluster API's mapping lists and gets.
// It is the driver's own, not the measured controller's, so that the scan
// runs beside a controller in another process, as observe mode runs it
// beside Cluster API's (the same scanmapping.Map over a cache). It stops
// with ctx.
func startScanCache(ctx context.Context, config *rest.Config) (client.Reader, error) {
	c, err := ctrlcache.New(config, ctrlcache.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, err
	}
	for _, obj := range []client.Object{&clusterv1.ClusterClass{}, &corev1.Namespace{}} {
		if _, err := c.GetInformer(ctx, obj); err != nil {
			return nil, err
		}
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return nil, errors.New("the simulated scan's cache did not sync")
	}
	return c, nil
}
