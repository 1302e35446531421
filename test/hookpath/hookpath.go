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

package hookpath

import "strings"

// Hook turns a Runtime SDK request path into its hook's name, the path's
// own lower-case segment:
// /hooks.runtime.cluster.x-k8s.io/v1alpha1/generatepatches/generate-patches
// is generatepatches. Discovery's path, which names no handler, is
// discovery; a path of another shape is returned as it is.
func Hook(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) < 3 {
		return path
	}
	return parts[2]
}
