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

package capinode

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
)

// Scale sets the replicas of the component's Deployment, as kubectl scale
// does, and returns how many it had. Scaled to 0, it waits until none of
// its Pods is left and its webhook Service has no endpoint: a request
// to it then fails as one to an extension that is down. Scaled up, it
// waits until the Deployment is rolled out and the Service leads to its
// new Pods.
func (m *Management) Scale(ctx context.Context, comp Component, replicas int32) (int32, error) {
	var had int32
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		s, err := m.cs.AppsV1().Deployments(comp.Namespace).GetScale(ctx, comp.Deployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		had, s.Spec.Replicas = s.Spec.Replicas, replicas
		_, err = m.cs.AppsV1().Deployments(comp.Namespace).UpdateScale(ctx, comp.Deployment, s, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("scale %s to %d: %w", comp.Deployment, replicas, err)
	}
	if replicas > 0 {
		return had, m.WaitServed(ctx, comp)
	}
	return had, m.waitGone(ctx, comp)
}

// waitGone waits until the component has no Pod, not even one being
// deleted, and its webhook Service no endpoint.
func (m *Management) waitGone(ctx context.Context, comp Component) error {
	return polltest.WithinContext(ctx, 2*time.Minute, comp.Deployment+" has no Pod and no endpoint", func() (bool, string) {
		d, err := m.cs.AppsV1().Deployments(comp.Namespace).Get(ctx, comp.Deployment, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		pods, err := m.cs.CoreV1().Pods(comp.Namespace).List(ctx, metav1.ListOptions{LabelSelector: metav1.FormatLabelSelector(d.Spec.Selector)})
		if err != nil {
			return false, err.Error()
		}
		if len(pods.Items) > 0 {
			return false, fmt.Sprintf("%d Pods left", len(pods.Items))
		}
		slices, err := m.cs.DiscoveryV1().EndpointSlices(comp.Namespace).List(ctx, metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=" + comp.webhookService()})
		if err != nil {
			return false, err.Error()
		}
		for _, s := range slices.Items {
			if len(s.Endpoints) > 0 {
				return false, fmt.Sprintf("EndpointSlice %s still has %d endpoints", s.Name, len(s.Endpoints))
			}
		}
		return true, ""
	})
}
