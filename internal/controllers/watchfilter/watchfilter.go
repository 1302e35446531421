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

package watchfilter

import (
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Matches reports whether obj is this manager's to reconcile: always when
// value is empty, else when its watch-filter label has exactly that value.
func Matches(obj client.Object, value string) bool {
	return value == "" || obj.GetLabels()[clusterv1.WatchLabel] == value
}

// LabelChanged reports whether an update moved obj to or from a watch
// filter: its reconcile is then this manager's, or no longer is.
func LabelChanged(old, new client.Object) bool {
	return old.GetLabels()[clusterv1.WatchLabel] != new.GetLabels()[clusterv1.WatchLabel]
}
