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

// Command runtime-sdk-controller holds the read-only tools a user runs
// beside a stock Cluster API before swapping its core manager for the
// drop-in (cmd/core-manager):
//
//   - observe mode (the command itself): watch the ExtensionConfigs Cluster
//     API maintains and export, per event, how many ClusterClass reconciles
//     Cluster API's scan mapping causes and how many the index would;
//   - who-uses: which ClusterClasses use an ExtensionConfig or a handler.
//
// Neither writes anything. Everything that reconciles is the drop-in.
// It runs against the cluster named by --kubeconfig, $KUBECONFIG or the
// in-cluster configuration.
package main
