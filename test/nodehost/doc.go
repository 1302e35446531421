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

// Package nodehost is the host's side of the lab's real Kubernetes node:
// it checks that this machine can run one (root, cgroup v1 hierarchies,
// overlayfs, the commands), creates the node's network namespace and cgroup
// root, runs a program inside them, and afterwards removes everything the
// node made, then proves that nothing is left: no process, mount, network
// interface, namespace or cgroup.
//
// The node lives in a network namespace of its own, with its address on a
// veth pair whose both ends stay inside it, and no route out, so nothing
// it runs can listen on the host's interfaces or send a packet off it.
// Programs enter it with nsenter (not `ip netns exec`, whose fresh /sys
// hides the cgroup hierarchies kubelet needs) and one private mount
// namespace, so that kubelet's volume mounts and containerd's root
// filesystems are seen by every component and vanish with them.
package nodehost
