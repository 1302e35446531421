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

package objstatus

import (
	"context"
	"os"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/apiservertest"
)

var env *apiservertest.Env

func TestMain(m *testing.M) { os.Exit(apiservertest.Run(m, &env)) }

func statusOfClusterClass(cc *clusterv1.ClusterClass) any { return cc.Status }

// flipAndFlipBack runs two reconciles of one ClusterClass: the first sets
// VariablesReady, the second, fed the copy a lagging cache still serves
// (from before the first write), finds the input flipped back and wants no
// condition. fresh says whether the second reconcile goes through
// Writes.Fresh, as the controllers do. It returns what the server holds.
func flipAndFlipBack(t *testing.T, name string, fresh bool) *clusterv1.ClusterClass {
	t.Helper()
	ctx := context.Background()
	cc := apiservertest.ClusterClass(env.Namespace(t, nil), name)
	if err := env.Client.Create(ctx, cc); err != nil {
		t.Fatal(err)
	}
	lagging := cc.DeepCopy()
	var writes Writes

	first := cc.DeepCopy()
	if err := writes.Fresh(ctx, env.Client, first); err != nil {
		t.Fatal(err)
	}
	before := first.DeepCopy()
	SetCondition(first, clusterv1.ClusterClassVariablesReadyCondition, metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason, "")
	if err := Patch(ctx, &writes, env.Client, before, first, statusOfClusterClass); err != nil {
		t.Fatal(err)
	}

	second := lagging.DeepCopy()
	if fresh {
		if err := writes.Fresh(ctx, env.Client, second); err != nil {
			t.Fatal(err)
		}
	}
	before = second.DeepCopy()
	second.Status.Conditions = nil
	if err := Patch(ctx, &writes, env.Client, before, second, statusOfClusterClass); err != nil {
		t.Fatal(err)
	}
	got := &clusterv1.ClusterClass{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cc), got); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestWrites_AReconcileOnACopyOlderThanOurLastWriteStillWrites(t *testing.T) {
	// Deciding from the lagging copy skips the second write: the server
	// keeps the first outcome, though the input flipped back.
	if got := flipAndFlipBack(t, "without-fresh", false); len(got.Status.Conditions) == 0 {
		t.Fatal("the lagging copy no longer loses the write: this test no longer shows why Fresh is needed")
	}
	if got := flipAndFlipBack(t, "with-fresh", true); len(got.Status.Conditions) != 0 {
		t.Errorf("the server kept %+v after the input flipped back", got.Status.Conditions)
	}
}

func TestWrites_ForgetsOnceTheCacheCaughtUp(t *testing.T) {
	var writes Writes
	obj := &clusterv1.ClusterClass{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cc", ResourceVersion: "10"}}
	writes.record(obj)
	caughtUp := obj.DeepCopy()
	caughtUp.ResourceVersion = "12"
	// A reader that must not be called: the copy is newer than the write.
	if err := writes.Fresh(context.Background(), nil, caughtUp); err != nil {
		t.Fatal(err)
	}
	if len(writes.written) != 0 {
		t.Errorf("record kept after the cache caught up: %v", writes.written)
	}
}
