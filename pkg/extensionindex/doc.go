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

// Package extensionindex maps events on Runtime Extension registrations to
// the ClusterClasses they can change, through a cache index instead of a
// scan of every ClusterClass.
//
// It has no dependency on this project's controllers: any controller-runtime
// manager (Cluster API's own included) can register the indexes with
// IndexClusterClasses and turn events into reconcile requests with a
// Mapper: RequestsForExtensionConfig for an ExtensionConfig's old and new
// object, RequestsForChanges for the handler changes registration.Diff
// computes between two registration.HandlerStates lists, and
// RequestsForNamespace for a Namespace's label change. A Mapper reads a nil
// namespaceSelector as Cluster API does: it admits no namespace.
// NamespaceMetadata is the Namespace, metadata only, that the Mapper, the
// controllers and the runtime client read and watch Namespaces as.
//
// ClusterClasses name handlers by their full name `<handler>.<config>` in
// spec.patches[].external (generatePatchesExtension,
// validateTopologyExtension, discoverVariablesExtension). References
// extracts them; malformed names are reported, never silently dropped.
package extensionindex
