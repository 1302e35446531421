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

// Package variablescache holds DiscoverVariables answers: it collapses
// Runtime Extension calls whose answer cannot differ.
//
// A DiscoverVariables answer depends only on the handler's registration
// (captured by its registry fingerprint) and the effective settings of the
// request. Calls with the same (handler, fingerprint, settings) share one
// HTTP request while in flight (singleflight) and reuse its answer
// afterwards. An entry is dropped as soon as its handler's fingerprint
// changes or the handler is forgotten (unregistered), and optionally after a
// maximum age, so the cache never outlives the registration it was built
// from and holds nothing for handlers that are gone.
//
// Failures are never stored as answers, but a failed call's error answers
// every caller of the same key for a short backoff (500 ms, doubling with
// each consecutive failure up to 30 s, cleared by a success): ClusterClasses
// retry on their own backoff, and N of them sharing a failing request would
// otherwise each call the struggling extension.
//
// The cache is bounded in entries and in bytes: a ClusterClass whose patch
// settings change leaves its old answer behind, and one answer may be 32 MiB
// on the wire and several times that once decoded. Each entry weighs what
// its answer holds in memory, measured on the decoded value (Retained), since
// how much a value holds beyond its JSON depends on its shape. Storing sweeps
// expired entries and then evicts the oldest until both bounds hold; an
// answer heavier than the whole byte bound goes to its callers but is not
// stored, and Options.Oversize hears of it.
//
// One seam a file: cache.go is the front (GetFor, Forget, the
// shared flight), store.go the entries, their age order and the bounds,
// weigh.go what an answer holds in memory, backoff.go the failures that
// stand in for calls, users.go who got which answer, and refresh.go asking
// the answers in use again.
package variablescache
