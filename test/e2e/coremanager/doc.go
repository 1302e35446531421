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

// Package coremanager tests the drop-in, bin/core-manager, from the outside:
// it builds the command in its own module, runs it against a local control
// plane with Cluster API's CRDs (two replicas with leader election among the
// tests), and checks what it does there, that it runs what Cluster API's
// own manager runs on the same control plane with the same flags but for
// our three parts (controllers and their workers, webhooks, the Lease,
// health checks, CRD migrations), and that config/core-manager swaps it
// in. It lives in the lab so that the drop-in's module requires nothing
// of the lab, and its test binary links none of Cluster API's reconcilers.
package coremanager
