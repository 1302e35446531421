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

// Package incluster runs a manager out of a cluster as a Pod's container
// would find itself, in the one respect a manager needs for
// --leader-elect: the service account mount holding its namespace, from
// which controller-runtime reads where the Lease lives (Cluster API's
// manager has no flag for it).
package incluster
