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

package localclustertest

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/auditcount"
)

// startCluster starts a control plane with opts in a fresh directory, from
// the binaries toolbin finds, and stops it when the test ends.
func startCluster(t *testing.T, opts localcluster.Options) *localcluster.Cluster {
	t.Helper()
	c, err := localcluster.Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("start local control plane: %v", err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

// options are those of a control plane in a fresh directory, from the
// binaries toolbin finds.
func options(t *testing.T) localcluster.Options {
	t.Helper()
	binDir, err := toolbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	return localcluster.Options{Dir: t.TempDir(), BinDir: binDir}
}

// With the audit log on, each user's requests are recorded under its own
// name, so a load tool can count what every actor sent.
func TestAuditLog_TellsUsersApart(t *testing.T) {
	ctx := context.Background()
	opts := options(t)
	auditLog, err := AuditLog(&opts)
	if err != nil {
		t.Fatal(err)
	}
	c := startCluster(t, opts)
	kubeconfig, config, err := User(c, "alice")
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatalf("alice's kubeconfig does not load: %v", err)
	}
	log := auditcount.Open(auditLog)
	mark, err := log.Mark()
	if err != nil {
		t.Fatal(err)
	}
	alice, err := client.New(config, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	// The kubeconfig is alice too, for the processes a tool starts with it.
	aliceFromFile, err := client.New(fromFile, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	// Alice is a cluster-admin: she may create a Namespace.
	if err := alice.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "alice"}}); err != nil {
		t.Fatal(err)
	}
	if err := aliceFromFile.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "alice"}}); err != nil {
		t.Fatal(err)
	}
	counts, err := log.Since(mark)
	if err != nil {
		t.Fatal(err)
	}
	if got := counts["alice"]; got.Writes != 2 || got.Requests < 2 {
		t.Errorf("alice: %+v, want 2 writes among her requests (one through her config, one through her kubeconfig)", got)
	}
	if got := counts["admin"]; got.Writes != 0 {
		t.Errorf("admin: %+v, want no writes: alice's were counted as someone else's", got)
	}
}
