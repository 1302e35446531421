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

// Package capimanagement runs a real Cluster API v1.14.2 management cluster
// on the local control plane, for tests and tools only: kube-apiserver and
// etcd, a core manager (Cluster API's own or the drop-in), CABPK, KCP, the
// in-memory provider and Cluster API's test Runtime Extension, each as its
// own process built unmodified by `make capi-providers`.
//
// Every process gets its own 127.0.0.1 ports and certificate directory, and
// every webhook and conversion webhook points at https://127.0.0.1:<port> of
// the process that serves it. The in-memory provider's ports (19000 and
// 20000 and up) cannot move, so Start holds a file lock shared by every
// test and tool that starts it.
package capimanagement
