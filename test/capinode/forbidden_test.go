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
	"bytes"
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2/textlogger"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/apiservertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
)

// The log check finds a request the apiserver's authorization refused, as
// a manager logs it (klog's text format, as Cluster API's managers write
// it): of a namespaced resource, of a cluster-scoped one, of a path that is
// no resource. It passes over a validation error that also says Forbidden:
// a new finalizer on an object being deleted, which Cluster API's own
// MachineSet controller logs during a scale. Every error comes from a real
// apiserver.
func TestForbidden_MatchesAuthorizationRefusalsNotOtherForbiddenErrors(t *testing.T) {
	toolbin.Require(t, func(binDir string) error { return toolbin.CheckAll(binDir, toolbin.Etcd, toolbin.KubeAPIServer) })
	env, err := apiservertest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	ctx := context.Background()

	asManager := rest.CopyConfig(env.Config)
	asManager.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:capi-system:capi-manager"}
	manager, err := client.New(asManager, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	managerSet, err := kubernetes.NewForConfig(asManager)
	if err != nil {
		t.Fatal(err)
	}
	pathRefused := managerSet.Discovery().RESTClient().Get().AbsPath("/metrics").Do(ctx).Error()
	refused := map[string]error{
		"namespaced":     manager.List(ctx, &corev1.SecretList{}, client.InNamespace("default")),
		"cluster-scoped": manager.List(ctx, &corev1.NamespaceList{}),
		"path":           pathRefused,
	}
	for what, err := range refused {
		if err == nil {
			t.Fatalf("a ServiceAccount with no role was allowed (%s): the apiserver does not authorize", what)
		}
	}

	held := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "held", Finalizers: []string{"rsc.lab/hold"}}}
	if err := env.Client.Create(ctx, held); err != nil {
		t.Fatal(err)
	}
	defer func() {
		held.Finalizers = nil
		_ = env.Client.Update(ctx, held)
	}()
	if err := env.Client.Delete(ctx, held); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(held), held); err != nil {
		t.Fatal(err)
	}
	held.Finalizers = append(held.Finalizers, "rsc.lab/another")
	invalid := env.Client.Update(ctx, held)
	if invalid == nil || !strings.Contains(invalid.Error(), "Forbidden") {
		t.Fatalf("adding a finalizer to an object being deleted: %v, want a validation error that says Forbidden", invalid)
	}
	held.Finalizers = held.Finalizers[:1]

	var logs bytes.Buffer
	logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(&logs)))
	logged := func(err error) string {
		logs.Reset()
		logger.Error(err, "Reconciler error", "controller", "machineset")
		return strings.TrimSpace(logs.String())
	}
	for what, err := range refused {
		if line := logged(err); !rbacRefusal.MatchString(line) {
			t.Errorf("the log check passed over a refusal (%s):\n%s", what, line)
		}
	}
	if line := logged(invalid); rbacRefusal.MatchString(line) {
		t.Errorf("the log check took a validation error for a refusal:\n%s", line)
	}
}
