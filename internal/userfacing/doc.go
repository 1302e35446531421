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

// Package userfacing holds what a user of runtime-sdk-controller sees and
// may set, beside Cluster API's own: the annotations we read, the
// conditions and reasons we write, and the defaults of the bounds, ages,
// rates and timeouts the drop-in runs with. Each is defined here once;
// the controllers, the runtime packages, the drop-in and the lab import
// it rather than write the value again. A test here fails when one of
// these strings is written as a literal anywhere else in the repository,
// or when shipped code writes a hook's name rather than take it from
// Cluster API's catalog.
//
// The package is a leaf: it imports the standard library and Cluster
// API's hook types, and nothing of ours, so any tool may link it.
package userfacing
