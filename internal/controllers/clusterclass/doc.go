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

// Package clusterclass reconciles ClusterClasses: it publishes in
// status.variables the inline spec.variables and the variables each
// external patch's discoverVariablesExtension returns, each definition
// naming where it came from, flags conflicting definitions, and reports a
// VariablesReady condition.
//
// A failed or partial discovery never wipes what was published: the last
// good status.variables stay, and the condition names the failing patch and
// handler. The one exception is Cluster API's: a handler with failurePolicy
// Ignore whose call got no readable answer (see FailurePolicyApplies in the
// runtime client) adds no variables, and the others are published as
// ready; the call is still retried with backoff, so that its next answer is
// published. DiscoverVariables calls go through a cache keyed by the
// handler's registry fingerprint and the effective settings, so
// ClusterClasses sharing an extension and settings cost one call per
// registration change; an ignored failure is kept there as a failure,
// never as an answer.
//
// ClusterClasses are reconciled when they change and when the registry
// reports that a handler they reference was added, changed or removed,
// found through the extensionindex indexes rather than a scan.
package clusterclass
