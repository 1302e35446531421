// Package skeleton builds the smallest valid ClusterClass: the
// infrastructure and control plane template references the CRD requires,
// and the patches a caller passes. Tests, the load tool and the drills all
// start from it, so a change to what the CRD requires lands in one place.
package skeleton

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// ClusterClass returns a ClusterClass in namespace named name with the given
// patches and placeholder template references (nothing resolves them: our
// controllers never read templates).
func ClusterClass(namespace, name string, patches ...clusterv1.ClusterClassPatch) *clusterv1.ClusterClass {
	return &clusterv1.ClusterClass{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: clusterv1.ClusterClassSpec{
			Infrastructure: clusterv1.InfrastructureClass{TemplateRef: clusterv1.ClusterClassTemplateReference{
				APIVersion: "infrastructure.cluster.x-k8s.io/v1beta2", Kind: "DockerClusterTemplate", Name: "infra",
			}},
			ControlPlane: clusterv1.ControlPlaneClass{TemplateRef: clusterv1.ClusterClassTemplateReference{
				APIVersion: "controlplane.cluster.x-k8s.io/v1beta2", Kind: "KubeadmControlPlaneTemplate", Name: "control-plane",
			}},
			Patches: patches,
		},
	}
}
