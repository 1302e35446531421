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

package apiservertest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/config/crd"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/minimalclass"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// Env is a running control plane for tests.
type Env struct {
	// Config reaches the apiserver as cluster-admin.
	Config *rest.Config
	// Scheme knows every type the project uses.
	Scheme *runtime.Scheme
	// Client is a direct (uncached) client.
	Client client.Client

	environment *envtest.Environment
}

// Start starts etcd and kube-apiserver from bin/ and installs the CRDs.
func Start() (*Env, error) {
	binDir, err := toolbin.Dir()
	if err != nil {
		return nil, err
	}
	if err := toolbin.CheckAll(binDir, toolbin.Etcd, toolbin.KubeAPIServer); err != nil {
		return nil, err
	}
	crds, err := crd.Definitions()
	if err != nil {
		return nil, err
	}
	// The template kinds minimalclass ClusterClasses reference, which the
	// ClusterClass controller reads (ownerReferences, contract versions).
	crds = append(crds, minimalclass.TemplateCRDs()...)
	environment := &envtest.Environment{
		BinaryAssetsDirectory:    binDir,
		CRDInstallOptions:        envtest.CRDInstallOptions{CRDs: crds},
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	config, err := environment.Start()
	if err != nil {
		return nil, fmt.Errorf("start envtest control plane from %s: %w", binDir, err)
	}
	// Tests create hundreds of objects; the default 5 QPS would make them
	// measure client-side throttling instead of the code under test.
	config.QPS = 500
	config.Burst = 1000
	s := scheme.New()
	c, err := client.New(config, client.Options{Scheme: s})
	if err != nil {
		_ = environment.Stop()
		return nil, err
	}
	return &Env{Config: config, Scheme: s, Client: c, environment: environment}, nil
}

// Stop stops the control plane.
func (e *Env) Stop() error {
	return e.environment.Stop()
}

// Run is the body of a TestMain: it starts the control plane, stores it in
// *env, runs the tests and stops it. A control plane that cannot start fails
// the package with the reason, not with a nil-pointer panic in a test.
//
// Under go test -short (make test-unit) it starts nothing and leaves *env
// nil: the package's tests that need no control plane run, and those that
// do skip, as Env's methods and Skip do on a nil Env.
func Run(m *testing.M, env **Env) int {
	if !flag.Parsed() {
		flag.Parse()
	}
	if testing.Short() {
		return m.Run()
	}
	started, err := Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "apiservertest: %v\n", err)
		return 1
	}
	*env = started
	code := m.Run()
	if err := started.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "apiservertest: stop: %v\n", err)
	}
	return code
}

// Skip skips t when e is nil: Run started no control plane, under go
// test -short. A test whose first use of the control plane is not one of
// Env's methods calls it first.
func (e *Env) Skip(t testing.TB) {
	t.Helper()
	if e == nil {
		toolbin.SkipShort(t)
		t.Fatal("no control plane: start it with apiservertest.Run in TestMain")
	}
}

// Namespace creates a namespace with a generated name and optional labels,
// for one test's objects, holding the templates ClusterClass references.
// The apiserver alone cannot finish deleting a namespace (that takes
// kube-controller-manager), so namespaces are not cleaned up; their
// generated names keep tests apart.
func (e *Env) Namespace(t testing.TB, labels map[string]string) string {
	t.Helper()
	e.Skip(t)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "test-", Labels: labels}}
	if err := e.Client.Create(ctx, ns); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	for _, template := range minimalclass.Templates(ns.Name) {
		if err := e.Client.Create(ctx, template); err != nil {
			t.Fatalf("create %s %s: %v", template.GetKind(), template.GetName(), err)
		}
	}
	return ns.Name
}

// ClusterClass returns a minimal valid ClusterClass (template references
// the apiserver requires) with the given patches, for tests to create.
func ClusterClass(namespace, name string, patches ...clusterv1.ClusterClassPatch) *clusterv1.ClusterClass {
	return minimalclass.ClusterClass(namespace, name, patches...)
}

// ExternalPatch is a patch named name calling the given extension handlers.
func ExternalPatch(name string, external clusterv1.ExternalPatchDefinition) clusterv1.ClusterClassPatch {
	return clusterv1.ClusterClassPatch{Name: name, External: &external}
}

// CreateExtensionConfig creates ext, failing the test if the apiserver
// refuses it, and deletes it when the test ends: ExtensionConfigs are
// cluster-scoped, so no test namespace keeps them apart.
func (e *Env) CreateExtensionConfig(t testing.TB, ext *runtimev1.ExtensionConfig) {
	t.Helper()
	e.Skip(t)
	if err := e.Client.Create(context.Background(), ext); err != nil {
		t.Fatalf("create ExtensionConfig %s: %v", ext.Name, err)
	}
	t.Cleanup(func() { _ = e.Client.Delete(context.Background(), ext) })
}

// RecordedExtensionConfig creates an ExtensionConfig whose status already
// records DiscoverVariables handlers with the given discovered names, under
// their full names `<handler>.<name>` as Cluster API or an earlier run would
// have written it, pointing at an address where no extension answers. It is
// deleted when the test ends.
func (e *Env) RecordedExtensionConfig(t testing.TB, name string, selector *metav1.LabelSelector, handlers ...string) *runtimev1.ExtensionConfig {
	t.Helper()
	e.Skip(t)
	ctx := context.Background()
	ext := &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: runtimev1.ExtensionConfigSpec{
			ClientConfig:      runtimev1.ClientConfig{URL: "https://127.0.0.1:1"},
			NamespaceSelector: selector,
		},
	}
	e.CreateExtensionConfig(t, ext)
	for _, h := range handlers {
		ext.Status.Handlers = append(ext.Status.Handlers, runtimev1.ExtensionHandler{
			Name:           registration.FullHandlerName(h, name),
			RequestHook:    runtimev1.GroupVersionHook{APIVersion: "hooks.runtime.cluster.x-k8s.io/v1alpha1", Hook: "DiscoverVariables"},
			TimeoutSeconds: 10,
			FailurePolicy:  runtimev1.FailurePolicyFail,
		})
	}
	if err := e.Client.Status().Update(ctx, ext); err != nil {
		t.Fatalf("record handlers of %s: %v", name, err)
	}
	return ext
}
