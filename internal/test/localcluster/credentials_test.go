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

package localcluster

import (
	"context"
	"net"
	"slices"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
)

// A node's kubelet authenticates with a certificate of the cluster's CA
// naming system:node:NAME in system:nodes, and reaches the apiserver on
// addresses beside loopback; both must hold, even in a directory first
// used without those addresses.
func TestWriteKubeconfigAs_TheApiserverSeesTheUserAndGroupsAndServesTheExtraAddresses(t *testing.T) {
	toolbin.SkipShort(t)
	binDir, err := toolbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	first := startCluster(t, dir, 0)
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}

	nodeAddress := net.IPv4(10, 250, 0, 2)
	c, err := Start(context.Background(), Options{
		Dir: dir, BinDir: binDir,
		AuthorizationModes: []string{"Node", "RBAC"},
		ServingIPs:         []net.IP{nodeAddress},
	})
	if err != nil {
		t.Fatalf("restart with a serving address: %v", err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	serving, err := readCert(c.pki.servingCert())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(serving.IPAddresses, nodeAddress.Equal) {
		t.Errorf("serving certificate names %v, want %s among them", serving.IPAddresses, nodeAddress)
	}

	path := t.TempDir() + "/kubelet.kubeconfig"
	if err := c.WriteKubeconfigAs(path, "system:node:n1", "system:nodes"); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	review, err := kubernetes.NewForConfigOrDie(cfg).AuthenticationV1().SelfSubjectReviews().
		Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("self subject review as the node: %v", err)
	}
	user := review.Status.UserInfo
	if user.Username != "system:node:n1" || !slices.Contains(user.Groups, "system:nodes") {
		t.Errorf("apiserver sees %q in %v, want system:node:n1 in system:nodes", user.Username, user.Groups)
	}
}
