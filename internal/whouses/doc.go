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

// Package whouses answers, for an operator about to change or delete a
// Runtime Extension, which ClusterClasses use it: for an ExtensionConfig or
// one of its handlers, every referencing ClusterClass with the fields that
// reference it, whether the config's namespaceSelector admits the
// ClusterClass's namespace, and whether the handler is discovered.
package whouses
