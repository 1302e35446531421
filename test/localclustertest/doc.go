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

// Package localclustertest adds to a local control plane what only tools
// and tests need: users of their own name, so that an audit log tells each
// process's requests apart (the load tool, the Cluster API management
// cluster); the audit log itself; and a crash of kube-apiserver (the
// restart drill).
//
// Package localcluster holds only what a local control plane needs to run,
// so it carries none of this. Tools reach the control plane through two
// seams instead, and no method exists in localcluster that only a tool
// calls:
//   - localcluster.Options.APIServerArgs, extra kube-apiserver flags, which
//     turn the audit log on;
//   - the data directory, whose layout is already a contract between runs:
//     pki/ca.crt and pki/ca.key are the CA every client certificate is
//     signed by, and run/kube-apiserver.pid names the running
//     kube-apiserver.
//
// The tests here break when that layout moves.
package localclustertest
