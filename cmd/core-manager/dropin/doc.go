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

// Package dropin assembles the drop-in core manager: the manager, caches,
// indexes, reconcilers, webhooks and runnables that Cluster API v1.14.2's
// core manager runs, with the same settings, except for three parts that are
// ours: the ExtensionConfig controller, the ClusterClass controller, and the
// runtime client and registry that Cluster API's own reconcilers call
// Runtime Extensions through; and the API version lookup its conversion
// webhooks need, whose Cluster API implementation is internal to its module.
//
// Parts lists what runs, each marked as Cluster API's or ours, so that the
// list the binary prints and the one its tests check are the same.
package dropin
