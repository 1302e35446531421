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

// Package capiflow is Cluster API's own provisioning flow, as its e2e runs
// it with its test extension, CABPK, KCP and the in-memory provider, for
// any management cluster: the lab's processes on a local control plane
// (test/e2e) or Pods on the real node (test/node). It returns what it saw
// and measured: step times, the hooks the test extension recorded, its
// requests by hook, the core manager's reconciles, and the status both
// managers must agree on.
package capiflow
