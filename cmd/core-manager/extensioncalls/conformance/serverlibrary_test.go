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

// Package conformance_test holds our runtime client, behind Cluster API's
// interface, to what Cluster API v1.14.2's client accepts: answers Cluster
// API's own server library writes, and the failure policy as its client
// applies it. Real HTTPS servers on 127.0.0.1, no kube-apiserver (every
// handler's namespaceSelector is empty, which reads no Namespace).
package conformance_test

import (
	"context"
	"crypto/tls"
	"net"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/cluster-api/exp/runtime/server"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/cmd/core-manager/extensioncalls"
	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

const hooksAPIVersion = "hooks.runtime.cluster.x-k8s.io/v1alpha1"

// startServerLibrary serves handlers with Cluster API's own server library
// on a free port of 127.0.0.1, with a certificate from a throw-away CA, and
// returns its URL and that CA's PEM. It stops when the test ends.
func startServerLibrary(t *testing.T, handlers ...server.ExtensionHandler) (url string, caPEM []byte) {
	t.Helper()
	caPEM, certPEM, keyPEM, err := sampleextension.SelfSignedCertificate([]string{"127.0.0.1"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	port, err := localcluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	cat := runtimecatalog.New()
	if err := runtimehooksv1.AddToCatalog(cat); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Options{
		Catalog: cat,
		Host:    "127.0.0.1",
		Port:    port,
		// A certificate of its own, so no files are watched.
		TLSOpts: []func(*tls.Config){func(c *tls.Config) {
			c.GetCertificate = func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return &cert, nil }
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range handlers {
		if err := srv.AddExtensionHandler(h); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- srv.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-stopped; err != nil {
			t.Errorf("server library: %v", err)
		}
	})
	polltest.Eventually(t, 10*time.Second, "the server library to listen", func() (bool, string) {
		if err := srv.StartedChecker()(nil); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	return "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), caPEM
}

// The extension's handlers, written as Cluster API's documentation shows:
// each sets its status and its answer, never apiVersion or kind.

func discoverVariables(_ context.Context, req *runtimehooksv1.DiscoverVariablesRequest, resp *runtimehooksv1.DiscoverVariablesResponse) {
	resp.SetStatus(runtimehooksv1.ResponseStatusSuccess)
	resp.Variables = []clusterv1.ClusterClassVariable{{
		Name:     "size",
		Required: ptr.To(true),
		Schema: clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{
			Type: "string", MaxLength: ptr.To[int64](10), Default: &apiextensionsv1.JSON{Raw: []byte(`"` + req.Settings["size"] + `"`)},
		}},
	}}
}

func generatePatches(_ context.Context, req *runtimehooksv1.GeneratePatchesRequest, resp *runtimehooksv1.GeneratePatchesResponse) {
	resp.SetStatus(runtimehooksv1.ResponseStatusSuccess)
	for _, item := range req.Items {
		resp.Items = append(resp.Items, runtimehooksv1.GeneratePatchesResponseItem{
			UID:       item.UID,
			PatchType: runtimehooksv1.JSONPatchType,
			Patch:     []byte(`[{"op":"add","path":"/spec/size","value":"` + req.Settings["size"] + `"}]`),
		})
	}
}

func beforeClusterCreate(_ context.Context, _ *runtimehooksv1.BeforeClusterCreateRequest, resp *runtimehooksv1.BeforeClusterCreateResponse) {
	resp.SetStatus(runtimehooksv1.ResponseStatusSuccess)
	resp.SetMessage("waiting for the network")
	resp.SetRetryAfterSeconds(7)
}

// A handler that forgets its status: the library writes none.
func forgetsStatus(context.Context, *runtimehooksv1.AfterControlPlaneInitializedRequest, *runtimehooksv1.AfterControlPlaneInitializedResponse) {
}

func TestServerLibrary_AnswersPassOurClient(t *testing.T) {
	url, ca := startServerLibrary(t,
		server.ExtensionHandler{Hook: runtimehooksv1.DiscoverVariables, Name: "vars", HandlerFunc: discoverVariables},
		server.ExtensionHandler{Hook: runtimehooksv1.GeneratePatches, Name: "patches", HandlerFunc: generatePatches,
			TimeoutSeconds: ptr.To[int32](5), FailurePolicy: ptr.To(runtimehooksv1.FailurePolicyIgnore)},
		server.ExtensionHandler{Hook: runtimehooksv1.BeforeClusterCreate, Name: "before-create", HandlerFunc: beforeClusterCreate},
		server.ExtensionHandler{Hook: runtimehooksv1.AfterControlPlaneInitialized, Name: "forgets-status", HandlerFunc: forgetsStatus,
			FailurePolicy: ptr.To(runtimehooksv1.FailurePolicyIgnore)},
	)
	calls, err := rtclient.New(rtclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := extensioncalls.New(calls, registry.New(), nil, nil)
	ctx := context.Background()
	config := &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "capi"},
		Spec: runtimev1.ExtensionConfigSpec{
			ClientConfig:      runtimev1.ClientConfig{URL: url, CABundle: ca},
			NamespaceSelector: &metav1.LabelSelector{},
			Settings:          map[string]string{"size": "large"},
		},
	}

	discovered, err := c.Discover(ctx, config)
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	handlers := discovered.Status.Handlers
	// The library lists its handlers in map order.
	sort.Slice(handlers, func(i, j int) bool { return handlers[i].Name < handlers[j].Name })
	hook := func(name string) runtimev1.GroupVersionHook {
		return runtimev1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: name}
	}
	want := []runtimev1.ExtensionHandler{
		{Name: "before-create.capi", RequestHook: hook("BeforeClusterCreate"), TimeoutSeconds: 10, FailurePolicy: runtimev1.FailurePolicyFail},
		{Name: "forgets-status.capi", RequestHook: hook("AfterControlPlaneInitialized"), TimeoutSeconds: 10, FailurePolicy: runtimev1.FailurePolicyIgnore},
		{Name: "patches.capi", RequestHook: hook("GeneratePatches"), TimeoutSeconds: 5, FailurePolicy: runtimev1.FailurePolicyIgnore},
		{Name: "vars.capi", RequestHook: hook("DiscoverVariables"), TimeoutSeconds: 10, FailurePolicy: runtimev1.FailurePolicyFail},
	}
	if len(handlers) != len(want) {
		t.Fatalf("discovered %+v, want %+v", handlers, want)
	}
	for i := range want {
		if handlers[i] != want[i] {
			t.Errorf("handler %d = %+v, want %+v", i, handlers[i], want[i])
		}
	}
	if err := c.WarmUp(&runtimev1.ExtensionConfigList{Items: []runtimev1.ExtensionConfig{*discovered}}); err != nil {
		t.Fatal(err)
	}
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c1"}}

	t.Run("DiscoverVariables", func(t *testing.T) {
		response := &runtimehooksv1.DiscoverVariablesResponse{}
		if err := c.CallExtension(ctx, runtimehooksv1.DiscoverVariables, &clusterv1.ClusterClass{ObjectMeta: cluster.ObjectMeta},
			"vars.capi", &runtimehooksv1.DiscoverVariablesRequest{}, response); err != nil {
			t.Fatal(err)
		}
		if len(response.Variables) != 1 {
			t.Fatalf("variables %+v, want one", response.Variables)
		}
		v := response.Variables[0]
		schema := v.Schema.OpenAPIV3Schema
		if v.Name != "size" || !ptr.Deref(v.Required, false) || schema.Type != "string" || ptr.Deref(schema.MaxLength, 0) != 10 ||
			schema.Default == nil || string(schema.Default.Raw) != `"large"` {
			t.Errorf("variable %+v, want the required string size of at most 10, default the setting large", v)
		}
	})

	t.Run("GeneratePatches", func(t *testing.T) {
		request := &runtimehooksv1.GeneratePatchesRequest{Items: []runtimehooksv1.GeneratePatchesRequestItem{{UID: "u1"}, {UID: "u2"}}}
		request.Settings = map[string]string{"size": "small"}
		response := &runtimehooksv1.GeneratePatchesResponse{}
		if err := c.CallExtension(ctx, runtimehooksv1.GeneratePatches, cluster, "patches.capi", request, response); err != nil {
			t.Fatal(err)
		}
		if len(response.Items) != 2 {
			t.Fatalf("items %+v, want a patch for u1 and u2", response.Items)
		}
		for i, uid := range []string{"u1", "u2"} {
			item := response.Items[i]
			if string(item.UID) != uid || item.PatchType != runtimehooksv1.JSONPatchType ||
				string(item.Patch) != `[{"op":"add","path":"/spec/size","value":"small"}]` {
				t.Errorf("item %d = %+v (patch %s), want %s's JSONPatch of the request's setting", i, item, item.Patch, uid)
			}
		}
	})

	t.Run("BeforeClusterCreate", func(t *testing.T) {
		response := &runtimehooksv1.BeforeClusterCreateResponse{}
		if err := c.CallAllExtensions(ctx, runtimehooksv1.BeforeClusterCreate, cluster, &runtimehooksv1.BeforeClusterCreateRequest{}, response); err != nil {
			t.Fatal(err)
		}
		if response.Status != runtimehooksv1.ResponseStatusSuccess || response.RetryAfterSeconds != 7 || response.Message != "waiting for the network" {
			t.Errorf("answer %+v, want Success, retryAfterSeconds 7 and its message", response.CommonRetryResponse)
		}
	})

	// As Cluster API's client, a status that is neither Success nor
	// Failure fails the call, failurePolicy Ignore notwithstanding.
	t.Run("a handler that sets no status", func(t *testing.T) {
		err := c.CallExtension(ctx, runtimehooksv1.AfterControlPlaneInitialized, cluster, "forgets-status.capi",
			&runtimehooksv1.AfterControlPlaneInitializedRequest{}, &runtimehooksv1.AfterControlPlaneInitializedResponse{})
		want := `failed to call extension handler "forgets-status.capi": got unknown response status "" with message: `
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	})
}
