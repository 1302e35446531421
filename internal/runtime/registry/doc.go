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

// Package registry holds the Runtime Extension handlers discovered from
// ExtensionConfigs, under their full name `<handler>.<extensionconfig>`.
//
// Each registered handler carries everything needed to call it (endpoint,
// CA bundle, hook, timeout, failure policy, the config's settings and
// namespaceSelector) and a fingerprint over exactly the inputs that can
// change what a call returns or how it behaves. Callers cache responses by
// fingerprint, and the ExtensionConfig -> ClusterClass mapping compares
// fingerprints to decide which ClusterClasses an update can affect.
//
// Its Gate says when it may be relied on, in stages that open in order:
// WarmedUp once warm-up has registered every ExtensionConfig known at
// start, so no ClusterClass reconcile mistakes a not-yet-loaded handler for
// a missing one; Rebuilt once the replica that leads has rebuilt it from
// the ExtensionConfigs as they are then, which reconciles wait for; and,
// for extension calls (Gate.Err), the first Discovery as leader of configs
// that recorded no handlers, since a standby's registry is as old as its
// start.
package registry
