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

// Package devrun is the development launcher behind `make run`: a Cluster
// API management cluster on the local control plane with the drop-in core
// manager (bin/core-manager) as its core manager, beside Cluster API's
// CABPK, KCP, in-memory provider and test Runtime Extension
// (test/capimanagement runs them, each as its own process), and the sample
// Runtime Extension. It applies the examples (ExtensionConfigs,
// ClusterClasses in two namespaces, a Cluster), prints next steps that work
// as printed, and then a one-line summary of what the drop-in does
// whenever it changes: Clusters and their state, ClusterClass reconciles,
// extension requests per hook, response cache hits.
//
// It is a tool for people trying the drop-in on their machine; no shipped
// binary links it.
package devrun
