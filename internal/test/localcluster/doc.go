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

// Package localcluster runs a local Kubernetes control plane, etcd and
// kube-apiserver built by `make tools` into bin/, for the dev launcher
// (`make run`), the load tool, the drills and the tests. No shipped binary
// links it: the controller runs against a cluster it is given.
//
// Unlike envtest (which the tests use), it keeps everything in one data
// directory that survives restarts: etcd's data, the certificates, the ports
// it picked and a kubeconfig. Objects created in one run are there in the
// next; deleting the directory (`make clean-local`) starts from scratch.
//
// Child processes run in their own process group, are stopped in order
// (kube-apiserver, then etcd) by Stop, and receive SIGTERM from the kernel if
// the parent dies first, so no run leaves orphans behind.
//
// It holds only what a local control plane needs to run. What only some
// tools add (users of their own name, an audit log, killing
// kube-apiserver) lives in test/localclustertest, which reaches the control
// plane through Options.APIServerArgs and the data directory's layout:
// pki/ca.crt and pki/ca.key sign every client certificate, and
// run/<binary>.pid names each running process. A later run already depends
// on that layout, so keeping it is no new promise.
package localcluster
