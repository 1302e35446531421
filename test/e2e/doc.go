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

// Package e2e runs Cluster API v1.14.2's own provisioning flow on a real
// management cluster on the local control plane (test/capimanagement): its
// test Runtime Extension, CABPK, KCP and the in-memory provider, with the
// drop-in core manager and, side by side, Cluster API's own. Its tests own
// no code of their own beyond the flow and its checks.
package e2e
