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

// Package sampleextension is a Cluster API Runtime Extension for tests and
// load runs. It speaks the Runtime SDK protocol (hooks.runtime.cluster.x-k8s.io
// v1alpha1) over real HTTPS: Discovery, and DiscoverVariables,
// GeneratePatches and ValidateTopology handlers (or any other hook of the
// catalog it is told to advertise).
//
// Unlike a real extension it can be told what to say at runtime: which
// handlers Discovery lists (without validation, so it can advertise handlers
// a controller must reject), which variables each DiscoverVariables handler
// returns, and which faults to inject (delays, HTTP 500s, hangs, dropped
// connections, Failure responses and raw bodies). It counts every call it
// answers, per hook and handler, so tests and the load tool can assert on
// exactly what a controller asked for.
//
// A Server is an http.Handler; StartTLS serves it in-process on a loopback
// port with a freshly generated CA, and Admin exposes the same controls over
// plain HTTP for out-of-process use by the load tool and
// test/cmd/sample-extension.
package sampleextension
