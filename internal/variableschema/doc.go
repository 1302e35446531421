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

// Package variableschema checks ClusterClass variable schemas, inline or
// returned by a DiscoverVariables extension, with the apiserver's own
// schema code (k8s.io/apiextensions-apiserver): the schema must be
// structural, use only the OpenAPI types and formats Kubernetes supports,
// carry x-kubernetes-validations rules that compile within the CRD cost
// limits, and have defaults and examples that are valid against it. The
// variable name must not be the reserved "builtin" nor contain a dot.
//
// A ClusterClass must never publish a schema Clusters cannot be validated
// against, so the controller checks every variable before it reaches
// status.variables. Results are cached per (name, schema) for as long as
// a ClusterClass holds the variable, within a bound: a resync re-validates
// nothing, and deleted or changed variables leave nothing behind.
package variableschema
