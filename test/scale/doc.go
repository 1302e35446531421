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

// Package scale runs Cluster API's scale shape (its test/e2e/scale.go with
// the in-memory-scale flavor) on a real management cluster
// (test/capimanagement), once under the drop-in core manager and once under
// Cluster API's own, each on a fresh control plane, and optionally a third
// time under the drop-in with the response cache on for the test
// extension's ExtensionConfig. Each event (create, idle, annotation update,
// settings change, upgrade, delete) is measured until quiet: wall time,
// the test extension's requests per hook, the core manager's reconciles
// per controller, its apiserver requests and writes from the audit log,
// and its CPU time and peak RSS. `rsc-bench scale` drives it.
package scale
