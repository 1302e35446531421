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

package conformance_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/cluster-api/exp/runtime/server"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/cmd/core-manager/extensioncalls"
	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
)

// settingsSeen is a server library handler that records the settings of
// every request it is sent.
type settingsSeen struct {
	mu   sync.Mutex
	seen []string
}

func (s *settingsSeen) beforeClusterCreate(_ context.Context, req *runtimehooksv1.BeforeClusterCreateRequest, resp *runtimehooksv1.BeforeClusterCreateResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, fmt.Sprint(req.Settings))
	resp.SetStatus(runtimehooksv1.ResponseStatusSuccess)
}

// As Cluster API's client does, ours sends each handler a copy of the
// request with that handler's settings: CallAllExtensions passes one
// request to every handler, so a handler must not get the settings of the
// one called before it, and the caller's request stays as it passed it.
func TestCallAllExtensions_EachHandlerGetsItsOwnSettingsOnly(t *testing.T) {
	record := &settingsSeen{}
	url, ca := startServerLibrary(t, server.ExtensionHandler{Hook: runtimehooksv1.BeforeClusterCreate, Name: "create", HandlerFunc: record.beforeClusterCreate})
	calls, err := rtclient.New(rtclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := extensioncalls.New(calls, registry.New(), nil, nil)
	ctx := context.Background()
	settings := map[string]map[string]string{
		"ext-a": {"size": "small", "only-a": "secret-of-a"},
		"ext-b": {"size": "large"},
	}
	var configs runtimev1.ExtensionConfigList
	for _, name := range slices.Sorted(maps.Keys(settings)) {
		discovered, err := c.Discover(ctx, &runtimev1.ExtensionConfig{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: runtimev1.ExtensionConfigSpec{
				ClientConfig: runtimev1.ClientConfig{URL: url, CABundle: ca}, NamespaceSelector: &metav1.LabelSelector{}, Settings: settings[name],
			},
		})
		if err != nil {
			t.Fatalf("Discover %s: %v", name, err)
		}
		configs.Items = append(configs.Items, *discovered)
	}
	if err := c.WarmUp(&configs); err != nil {
		t.Fatal(err)
	}

	request := &runtimehooksv1.BeforeClusterCreateRequest{}
	response := &runtimehooksv1.BeforeClusterCreateResponse{}
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c1"}}
	if err := c.CallAllExtensions(ctx, runtimehooksv1.BeforeClusterCreate, cluster, request, response); err != nil {
		t.Fatal(err)
	}

	record.mu.Lock()
	got := slices.Sorted(slices.Values(record.seen))
	record.mu.Unlock()
	want := []string{fmt.Sprint(settings["ext-a"]), fmt.Sprint(settings["ext-b"])}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the handlers were sent settings %q, want each its own registration's: %q", got, want)
	}
	if request.Settings != nil || !request.GetObjectKind().GroupVersionKind().Empty() {
		t.Errorf("the caller's request became settings %v, kind %v; want it as passed", request.Settings, request.GetObjectKind().GroupVersionKind())
	}
}
