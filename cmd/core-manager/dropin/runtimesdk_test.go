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

package dropin

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/cmd/core-manager/cmdline"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/apiservertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextensiontest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

var env *apiservertest.Env

func TestMain(m *testing.M) { os.Exit(apiservertest.Run(m, &env)) }

const eventually = 60 * time.Second

// startRuntimeSDK runs, on a manager of its own, the drop-in's runtime SDK
// step as the binary wires it (with RuntimeSDK and ClusterTopology on),
// until the test ends, and returns the assembly holding the runtime client
// Cluster API's reconcilers would be given.
func startRuntimeSDK(t *testing.T) *assembly {
	t.Helper()
	env.Skip(t)
	o, err := cmdline.Parse("core-manager", []string{"--feature-gates=ClusterTopology=true,RuntimeSDK=true"})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme: NewScheme(), Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		// Each test runs a manager of its own in this one process, under
		// the same controller names.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &assembly{mgr: mgr, o: o}
	// The Secret metadata cache the CA watch reads, as the binary builds
	// it before this step.
	if err := a.secretCache(ctx); err != nil {
		cancel()
		t.Fatal(err)
	}
	if err := a.runtimeSDK(ctx); err != nil {
		cancel()
		t.Fatal(err)
	}
	if a.runtimeClient == nil {
		cancel()
		t.Fatal("no runtime client with RuntimeSDK on")
	}
	managertest.Run(t, ctx, cancel, mgr)
	return a
}

// An ExtensionConfig stored with a nil namespaceSelector (Cluster API's
// webhook was off, so nothing defaulted it to {}) admits no namespace
// anywhere in the drop-in: the runtime client Cluster API's topology
// controller calls through refuses the call, and our ClusterClass
// controller shows VariablesReady False with Cluster API's reason, in the
// runtime client's words, instead of True. Setting the selector to {}
// admits the namespace in both, and reaches the ClusterClass by the
// mapping alone (nothing resyncs it).
func TestRuntimeSDK_ANilSelectorAdmitsNoNamespaceInTheControllerAndTheRuntimeClientAlike(t *testing.T) {
	a := startRuntimeSDK(t)
	ctx := context.Background()
	ext := sampleextensiontest.Start(t, sampleextension.Options{Variables: map[string][]clusterv1.ClusterClassVariable{
		sampleextension.DiscoverVariablesHandler: {{
			Name: "region", Required: ptr.To(true),
			Schema: clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{Type: "string"}},
		}},
	}})
	config := &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "unselected"},
		Spec:       runtimev1.ExtensionConfigSpec{ClientConfig: runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}},
	}
	env.CreateExtensionConfig(t, config)
	ns := env.Namespace(t, nil)
	handler := registration.FullHandlerName(sampleextension.DiscoverVariablesHandler, config.Name)
	cc := apiservertest.ClusterClass(ns, "cc", apiservertest.ExternalPatch("external", clusterv1.ExternalPatchDefinition{DiscoverVariablesExtension: handler}))
	if err := env.Client.Create(ctx, cc); err != nil {
		t.Fatal(err)
	}
	refused := fmt.Sprintf("namespaceSelector did not match object %s/cc", ns)

	condition := waitVariablesReady(t, cc, metav1.ConditionFalse, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason, refused)
	t.Logf("VariablesReady: %s", condition.Message)
	err := a.runtimeClient.CallExtension(ctx, runtimehooksv1.DiscoverVariables, cc, handler,
		&runtimehooksv1.DiscoverVariablesRequest{}, &runtimehooksv1.DiscoverVariablesResponse{})
	if err == nil || !strings.Contains(err.Error(), refused) {
		t.Errorf("the runtime client's call: %v, want it refused with %q", err, refused)
	}

	base := config.DeepCopy()
	config.Spec.NamespaceSelector = &metav1.LabelSelector{}
	if err := env.Client.Patch(ctx, config, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	waitVariablesReady(t, cc, metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason, "")
	polltest.Eventually(t, eventually, "the runtime client calls the handler", func() (bool, string) {
		err := a.runtimeClient.CallExtension(ctx, runtimehooksv1.DiscoverVariables, cc, handler,
			&runtimehooksv1.DiscoverVariablesRequest{}, &runtimehooksv1.DiscoverVariablesResponse{})
		return err == nil, fmt.Sprint(err)
	})
}

// waitVariablesReady waits until cc's VariablesReady has status, reason
// and a message containing message, and returns it.
func waitVariablesReady(t *testing.T, cc *clusterv1.ClusterClass, status metav1.ConditionStatus, reason, message string) *metav1.Condition {
	t.Helper()
	env.Skip(t)
	var c *metav1.Condition
	polltest.Eventually(t, eventually, fmt.Sprintf("VariablesReady=%s", status), func() (bool, string) {
		got := &clusterv1.ClusterClass{}
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(cc), got); err != nil {
			return false, err.Error()
		}
		c = meta.FindStatusCondition(got.Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition)
		if c == nil {
			return false, "no condition"
		}
		return c.Status == status && c.Reason == reason && strings.Contains(c.Message, message),
			fmt.Sprintf("%s/%s: %s", c.Status, c.Reason, c.Message)
	})
	return c
}
