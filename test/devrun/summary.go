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

package devrun

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
)

// notReadyShown bounds how many ClusterClasses without ready variables the
// summary names.
const notReadyShown = 3

// The core manager's metrics the summary reads: controller-runtime's
// reconcile count, Cluster API's request count (the drop-in exports it
// with Cluster API's names and labels) and the drop-in's response cache
// lookups.
const (
	reconcilesMetric   = "controller_runtime_reconcile_total"
	requestsMetric     = "capi_runtime_sdk_requests_total"
	cacheLookupsMetric = "runtime_sdk_response_cache_lookups_total"
)

// summarizer reads the cluster and the core manager's metrics into one
// line.
type summarizer struct {
	client client.Client
	scrape func(context.Context) (managerprocess.Metrics, error)
}

// line is the summary now: it changes only when something happened.
func (s *summarizer) line(ctx context.Context) (string, error) {
	clusters := &clusterv1.ClusterList{}
	if err := s.client.List(ctx, clusters); err != nil {
		return "", err
	}
	classes := &clusterv1.ClusterClassList{}
	if err := s.client.List(ctx, classes); err != nil {
		return "", err
	}
	configs := &runtimev1.ExtensionConfigList{}
	if err := s.client.List(ctx, configs); err != nil {
		return "", err
	}
	m, err := s.scrape(ctx)
	if err != nil {
		return "", err
	}
	handlers := 0
	for i := range configs.Items {
		handlers += len(configs.Items[i].Status.Handlers)
	}
	return strings.Join([]string{
		"Clusters: " + clusterStates(clusters.Items),
		classesLine(classes.Items, m.Sum(reconcilesMetric, map[string]string{"controller": "clusterclass"})),
		fmt.Sprintf("ExtensionConfigs: %d, %d handlers", len(configs.Items), handlers),
		"extension requests: " + requestsByHook(m),
		cacheLine(m),
	}, " · "), nil
}

// clusterStates names each Cluster with its phase and whether it is
// Available, such as "team-a/dev-1 Provisioned, Available".
func clusterStates(clusters []clusterv1.Cluster) string {
	if len(clusters) == 0 {
		return "none"
	}
	states := make([]string, 0, len(clusters))
	for i := range clusters {
		c := &clusters[i]
		phase := c.Status.Phase
		if phase == "" {
			phase = "Pending"
		}
		available := "not Available"
		if meta.IsStatusConditionTrue(c.Status.Conditions, clusterv1.AvailableCondition) {
			available = "Available"
		}
		states = append(states, fmt.Sprintf("%s/%s %s, %s", c.Namespace, c.Name, phase, available))
	}
	sort.Strings(states)
	return strings.Join(states, "; ")
}

// classesLine counts the ClusterClasses with ready variables, names up to
// notReadyShown of the others with why, and says how many reconciles the
// ClusterClass controller has run.
func classesLine(classes []clusterv1.ClusterClass, reconciles float64) string {
	ready := 0
	var notReady []string
	for i := range classes {
		cc := &classes[i]
		c := meta.FindStatusCondition(cc.Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition)
		switch {
		case c != nil && c.Status == metav1.ConditionTrue:
			ready++
		case c == nil:
			notReady = append(notReady, cc.Namespace+"/"+cc.Name+" (not reconciled yet)")
		default:
			notReady = append(notReady, fmt.Sprintf("%s/%s (%s)", cc.Namespace, cc.Name, c.Reason))
		}
	}
	sort.Strings(notReady)
	line := fmt.Sprintf("ClusterClasses: %d of %d with variables ready, %.0f reconciles", ready, len(classes), reconciles)
	if len(notReady) > notReadyShown {
		notReady = append(notReady[:notReadyShown], fmt.Sprintf("and %d more", len(notReady)-notReadyShown))
	}
	if len(notReady) > 0 {
		line += " (not ready: " + strings.Join(notReady, ", ") + ")"
	}
	return line
}

// requestsByHook is Cluster API's request count by hook, in hook order,
// such as "DiscoverVariables 3, GeneratePatches 40".
func requestsByHook(m managerprocess.Metrics) string {
	byHook := map[string]float64{}
	for _, series := range m[requestsMetric].GetMetric() {
		for _, l := range series.GetLabel() {
			if l.GetName() == "hook" {
				byHook[l.GetValue()] += series.GetCounter().GetValue()
			}
		}
	}
	if len(byHook) == 0 {
		return "none"
	}
	hooks := make([]string, 0, len(byHook))
	for hook := range byHook {
		hooks = append(hooks, hook)
	}
	sort.Strings(hooks)
	parts := make([]string, 0, len(hooks))
	for _, hook := range hooks {
		parts = append(parts, fmt.Sprintf("%s %.0f", hook, byHook[hook]))
	}
	return strings.Join(parts, ", ")
}

// cacheLine is the response cache's hits, with its misses once a config
// opted in.
func cacheLine(m managerprocess.Metrics) string {
	hits := m.Sum(cacheLookupsMetric, map[string]string{"result": "hit"})
	misses := m.Sum(cacheLookupsMetric, map[string]string{"result": "miss"})
	if hits+misses == 0 {
		return "response cache hits: 0"
	}
	return fmt.Sprintf("response cache hits: %.0f, misses: %.0f", hits, misses)
}
