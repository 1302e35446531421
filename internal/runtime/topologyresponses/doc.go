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

// Package topologyresponses holds the answers of the topology hooks that
// Cluster API calls on every topology reconcile, GeneratePatches and
// ValidateTopology, and answers their repeats from memory, for the
// ExtensionConfigs whose user opted in
// (userfacing.ResponseCacheMaxAgeAnnotation, whose max age the
// ExtensionConfig controller passes to SetMaxAge).
//
// Cluster API's topology controller calls these hooks for every external
// patch on every topology reconcile, and its runtime client keeps nothing:
// at each resync every Cluster costs one GeneratePatches request per patch,
// even when nothing changed. A repeat cannot be told by its bytes, because
// each request item carries a fresh random uid, and the items come in the
// order of a Go map. So a request is normalised first (key.go): uids are
// left out and items are sorted by their holder reference, while the
// settings, the variables and every field of every object still count.
//
// A hit answers with a copy of the stored answer whose patch uids are
// mapped onto the new request's items by holder reference and field path,
// never by position (rewrite.go). Only successful answers are stored, and
// never one that names a uid the request did not hold: Cluster API refuses
// such an answer, and it must reach Cluster API as it came.
//
// Entries are bounded in number and bytes, least recently used first out
// (cache.go). An answer is never served past the max age its config sets
// at lookup time; once past the max age in force at any store, or at a
// SetMaxAge, it is dropped, and a longer max age set later does not bring
// it back. A change of a config's registration or settings drops them all.
//
// Caching is off unless asked for. Cluster API requires a deterministic
// answer for a given request but lets an extension read external data, so
// only the user who knows the extension can say how long an answer holds.
package topologyresponses
