package extensionindex

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Admits reports whether an ExtensionConfig's namespaceSelector admits a
// namespace with the given labels. A nil selector admits every namespace:
// that is the API's documented default, which Cluster API otherwise relies
// on a defaulting webhook to write as {}.
func Admits(selector *metav1.LabelSelector, namespaceLabels map[string]string) (bool, error) {
	if selector == nil {
		return true, nil
	}
	s, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return false, fmt.Errorf("namespaceSelector is invalid: %w", err)
	}
	return s.Matches(labels.Set(namespaceLabels)), nil
}
