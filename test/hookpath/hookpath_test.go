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

import "testing"

func TestHook_NamesTheHookOfARuntimeSDKPath(t *testing.T) {
	for path, want := range map[string]string{
		"/hooks.runtime.cluster.x-k8s.io/v1alpha1/generatepatches/generate-patches.scale": "generatepatches",
		"/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery":                              "discovery",
		"/healthz": "/healthz",
	} {
		if got := Hook(path); got != want {
			t.Errorf("Hook(%q) = %q, want %q", path, got, want)
		}
	}
}
