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

// Package drill runs fault drills against the drop-in core manager
// (cmd/core-manager) on a local control plane serving Cluster API's CRDs:
// an extension that flaps, a kube-apiserver that goes away and comes back,
// a long soak of periodic changes, and a property run of random events
// (rounds where Discovery fails among them) after each round of which a
// freshly started drop-in must find nothing to write. Each drill runs the
// drop-in as its own process (the binary an operator runs), watches every
// ClusterClass's status continuously for lost variables, samples the
// process's memory, goroutines and metrics, and reports what it saw.
package drill
