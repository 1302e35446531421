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

// Command rsc-pause is the lab node's sandbox ("pause") image: the first
// process of every Pod, which holds the Pod's namespaces while its
// containers come and go. It waits for SIGTERM or SIGINT and exits 0, and
// as PID 1 of a Pod that shares its process namespace it reaps the
// orphans the kernel gives it. The node has no registry to pull
// Kubernetes' own pause image from, so it runs this one.
package main
