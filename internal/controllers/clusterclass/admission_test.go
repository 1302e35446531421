package clusterclass_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/sampleextension"
)

// Admission is not part of Discovery: a namespaceSelector edited while the
// extension's Discovery fails admits and rejects namespaces at once.
func TestAdmission_FollowsTheSelectorWhileDiscoveryFails(t *testing.T) {
	startManager(t)
	ctx := context.Background()
	ext := startExtension(t, stringVariable("region", true))
	config := createExtensionConfig(t, ext, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}})
	teamA := env.Namespace(t, map[string]string{"team": "a"})
	teamB := env.Namespace(t, map[string]string{"team": "b"})
	create(t, newClusterClass(teamA, "cc", config))
	create(t, newClusterClass(teamB, "cc", config))
	waitVariablesReady(t, teamA, "cc", metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason)
	waitVariablesReady(t, teamB, "cc", metav1.ConditionFalse, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason, "not admitted")

	ext.Server.SetFaults("Discovery", sampleextension.Faults{ErrorRate: 1})
	got := &runtimev1.ExtensionConfig{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: config}, got); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(got.DeepCopy())
	got.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "b"}}
	if err := env.Client.Patch(ctx, got, patch); err != nil {
		t.Fatal(err)
	}
	waitVariablesReady(t, teamB, "cc", metav1.ConditionTrue, clusterv1.ClusterClassVariablesReadyReason)
	waitVariablesReady(t, teamA, "cc", metav1.ConditionFalse, clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason, "not admitted")
}
