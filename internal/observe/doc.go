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

// Package observe is observe mode, the command of bin/runtime-sdk-controller:
// run beside Cluster API's own manager, it discovers nothing and writes
// nothing, but watches the ExtensionConfigs Cluster API maintains and
// exports, per event, how many ClusterClass reconciles Cluster API's scan
// mapping causes and how many the index mapping would, so an operator can
// measure the waste on a live cluster before swapping in the drop-in.
// NewManager builds its manager.
package observe
