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

// Package minimalclass builds the smallest valid ClusterClass: the
// infrastructure and control plane template references the CRD requires,
// and the patches a caller passes, together with the template CRDs and
// templates it references. Tests, the load tool, the drills and the
// differential tests all start from it, so a change to what the CRD
// requires lands in one place.
//
// It is a fixture builder, so it lives with the test helpers under
// internal/test/ and no shipped binary links it. config/crd/templates holds
// the same two template CRDs as YAML; a test here keeps the files equal to
// what TemplateCRDs builds.
package minimalclass
