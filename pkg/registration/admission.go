package registration

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// NilSelector is how a manager reads an ExtensionConfig whose
// spec.namespaceSelector is nil. Every other selector admits the same
// namespaces under both readings. A manager picks one reading and uses it
// for every admission decision it makes (its reconcile, its event mapping
// and its runtime client); two readings in one process show a ClusterClass
// as ready while the calls made for it fail.
type NilSelector int

const (
	// NilAdmitsAll reads a nil selector as the empty one, which admits
	// every namespace: the API's documented default. It is the zero value,
	// for a manager that runs without Cluster API's defaulting webhook
	// (which would have written {}), as the standalone controller does.
	NilAdmitsAll NilSelector = iota
	// NilAdmitsNone reads a nil selector as admitting no namespace, as
	// Cluster API's registry and runtime client do. A manager beside
	// Cluster API's reconcilers uses it, so that it admits exactly the
	// namespaces their calls are made for. Behind Cluster API's webhook a
	// nil is only seen on an object stored while the webhook was off.
	NilAdmitsNone
)

// String names the reading.
func (n NilSelector) String() string {
	switch n {
	case NilAdmitsAll:
		return "NilAdmitsAll"
	case NilAdmitsNone:
		return "NilAdmitsNone"
	default:
		return fmt.Sprintf("NilSelector(%d)", int(n))
	}
}

// Admits reports whether selector admits a namespace with the given
// labels, reading a nil selector as n says.
func (n NilSelector) Admits(selector *metav1.LabelSelector, namespaceLabels map[string]string) (bool, error) {
	s, err := n.Selector(selector)
	if err != nil {
		return false, err
	}
	return s.Matches(labels.Set(namespaceLabels)), nil
}

// Selector is the label selector a namespaceSelector stands for, a nil one
// read as n says, for a caller that tests many namespaces against one
// selector. Empty() of the result is true exactly when it admits every
// namespace without reading any; under NilAdmitsNone a nil selector is
// labels.Nothing(), as metav1.LabelSelectorAsSelector makes it for
// Cluster API's registry and ClusterClass mapping.
func (n NilSelector) Selector(selector *metav1.LabelSelector) (labels.Selector, error) {
	if selector == nil {
		if n == NilAdmitsNone {
			return labels.Nothing(), nil
		}
		return labels.Everything(), nil
	}
	s, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return nil, fmt.Errorf("namespaceSelector is invalid: %w", err)
	}
	return s, nil
}
