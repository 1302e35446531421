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

// Package shutdownhang tells a manager's stop error that comes from a known
// controller-runtime v0.24 bug from every other. Cluster API v1.14.2 links
// v0.24.1, and so does the drop-in: its priority queue can hand an item to
// a worker that has already left at shutdown, blocking forever while it
// holds the lock Done needs (controller-runtime's issue 3538, fixed in
// v0.25). A reconcile that ends after that blocks in Done, and the manager
// gives up after its graceful shutdown timeout. Tests that stop a manager
// report that case and fail on any other error.
package shutdownhang
