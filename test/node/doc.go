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

// Package node starts and stops the lab's one-node Kubernetes cluster from
// inside the network namespace package nodehost makes: etcd and
// kube-apiserver (package localcluster), kube-controller-manager,
// kube-scheduler, containerd with Debian's runc, kubelet, kube-proxy, and
// the bridge, host-local, loopback and portmap CNI plugins, all built from
// their released modules by make node-binaries. There is no registry:
// images are OCI archives imported into containerd, and Pods use them with
// IfNotPresent.
//
// Every component reaches kube-apiserver on 127.0.0.1 inside the
// namespace and Pods through the kubernetes Service; each has its own
// identity signed by the control plane's CA, and RBAC and the Node
// authorizer decide what it may do.
package node
