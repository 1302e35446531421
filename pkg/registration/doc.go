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

// Package registration is the model of a Runtime Extension handler's
// registration, the one place each fact about it is read:
//
//   - the full name `<handler>.<config>` a handler is registered, referenced
//     and recorded under (FullHandlerName, ExtensionConfigOf), and how an
//     ExtensionConfig's status.handlers reads back (RecordedHandlers);
//   - what a registered handler is to everything keyed on it (HandlerState):
//     its Fingerprint over every input of a call, which the registry, the
//     variables cache and the response cache key on;
//   - what changed between two registrations (Diff), which the index maps
//     to ClusterClasses and the caches forget by;
//   - whether a namespaceSelector admits a namespace (Admits, Selector), as
//     Cluster API decides it, which every admission decision goes through.
//
// The registry (internal/runtime/registry) holds registrations; the index
// (pkg/extensionindex) maps their changes to ClusterClasses.
package registration
