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

package registration

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Admits reports whether an ExtensionConfig's namespaceSelector admits a
// namespace with the given labels, as Cluster API's registry and runtime
// client decide it: a nil selector admits no namespace. Behind Cluster
// API's defaulting webhook a nil is only seen on an object stored while
// the webhook was off; the API documents it as {}, which admits all.
func Admits(selector *metav1.LabelSelector, namespaceLabels map[string]string) (bool, error) {
	s, err := Selector(selector)
	if err != nil {
		return false, err
	}
	return s.Matches(labels.Set(namespaceLabels)), nil
}

// Selector is the label selector a namespaceSelector stands for, for a
// caller that tests many namespaces against one selector. A nil one is
// labels.Nothing(), as metav1.LabelSelectorAsSelector makes it for Cluster
// API's registry and ClusterClass mapping. Empty() of the result is true
// exactly when it admits every namespace without reading any.
func Selector(selector *metav1.LabelSelector) (labels.Selector, error) {
	if selector == nil {
		return labels.Nothing(), nil
	}
	s, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return nil, fmt.Errorf("namespaceSelector is invalid: %w", err)
	}
	return s, nil
}
