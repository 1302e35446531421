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

// Command rsc-dev is the development launcher `make run` starts: a Cluster
// API v1.14.2 management cluster on the local control plane (etcd and
// kube-apiserver from bin/, with every provider's CRDs and webhooks), with
// the drop-in, bin/core-manager, as its core manager, and, each as its own
// child process, Cluster API's CABPK, KCP, in-memory provider and test
// Runtime Extension, and the sample Runtime Extension. It applies examples/
// (ExtensionConfigs, ClusterClasses in two namespaces, a Cluster), prints
// the commands to try next, and then a one-line summary of what the drop-in
// does (Clusters and their state, ClusterClass reconciles, extension
// requests per hook, response cache hits) whenever it changes.
//
// Every launch starts afresh in .local/management, where the logs are: the
// in-memory provider keeps its workload clusters in memory. Flags after --
// go to the core manager. A port the in-memory provider needs (19000,
// 20000 and 20001) or another child needs that is taken stops it before
// anything starts, naming the port. Ctrl-C stops the management cluster
// (the providers, the core manager, kube-apiserver, etcd) and then the
// sample extension.
//
// It is a tool for trying the drop-in; no shipped binary links it.
package main
