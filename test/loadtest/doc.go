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

// Package loadtest drives the drop-in core manager, or Cluster API's own,
// as a process on the local control plane against sample Runtime
// Extensions and accounts, per event, for what it cost: enqueues,
// reconciles and extension calls, next to the optimum (the ClusterClasses
// whose observable inputs changed, and the distinct calls among them) and
// to what Cluster API's scan mapping would have enqueued for the same
// event, or to what Cluster API's manager did in a comparison.
package loadtest
