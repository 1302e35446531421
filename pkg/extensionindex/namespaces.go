package extensionindex

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NamespaceMetadata returns an empty Namespace as metadata only, to read or
// watch Namespaces with: a namespaceSelector matches a Namespace's labels,
// so its metadata is all that admission and the event mapping read, and a
// manager's cache then holds no more of it.
func NamespaceMetadata() *metav1.PartialObjectMetadata {
	ns := &metav1.PartialObjectMetadata{}
	ns.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Namespace"))
	return ns
}
