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

// Package quiet waits until something stops changing: a reconcile count,
// a set of counters, a snapshot of statuses. The load tool, the drills, the
// differential tests and the mapping tests all decide "the controller is
// done with this event" this one way, each with its own window and
// deadline, so their figures are measured alike.
//
// It is for tools and tests; neither shipped binary links it.
package quiet
