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

// Package capibaseline runs Cluster API v1.14.2's own core manager,
// unmodified, as built by `make capi-baseline` into bin/capi-baseline, on a
// local control plane: with the core CRDs copied from its module, a
// throw-away webhook certificate, ports of its own, and the ClusterTopology
// and RuntimeSDK feature gates on. It is the reference the differential
// tests compare our status with, and the baseline the tools measure against.
//
// It is for tests and tools; the controller binary never links it.
package capibaseline
