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

// Package differential runs one fixture under Cluster API v1.14.2's own
// core manager (bin/capi-baseline) and under the drop-in core manager
// (cmd/core-manager), each on a fresh local control plane with the same sample extensions, and compares
// what each wrote, field by field: ExtensionConfig status, ClusterClass
// status, and the ownerReferences on the templates ClusterClasses use.
//
// Every difference is either a bug to fix or listed in the allow-list with
// its reason. The package is for tests; the controller never links it.
package differential
