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

// Package apiservertest is the one place tests get a real control plane from: it
// finds the kube-apiserver and etcd that `make tools` built, starts them with
// controller-runtime's envtest, installs the CRDs committed under
// config/crd/bases, and hands out clients and per-test namespaces.
//
// A package with envtest tests starts one control plane for all its tests:
//
//	var env *apiservertest.Env
//
//	func TestMain(m *testing.M) { os.Exit(apiservertest.Run(m, &env)) }
package apiservertest
