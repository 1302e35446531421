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

// Command rsc-bench measures runtime-sdk-controller: `loadtest` runs the
// drop-in core manager against many objects and counts what each event
// costs next to the optimum and to Cluster API's scan (or, with --compare
// capi, to Cluster API's own manager); `drill` runs the controller binary
// through faults (a flapping extension, kube-apiserver killed, a long soak)
// and random events checked against a fresh controller. Both start a fresh
// local control plane from the binaries in bin/. `scale` runs Cluster API's
// scale shape on a real management cluster (test/capimanagement) under the
// drop-in core manager and under Cluster API's own, side by side.
//
// It is a tool apart from the controller binary, which links none of it.
package main
