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

// Package extensionconfig reconciles Cluster API ExtensionConfigs: it fills
// spec.clientConfig.caBundle from the Secret named by the
// runtime.cluster.x-k8s.io/inject-ca-from-secret annotation, runs Discovery
// against the extension over verified HTTPS, records the handlers in
// status.handlers with a Discovered condition, and keeps the handler
// registry in step (register on success, unregister on delete).
//
// It never rewrites status that did not change, so a re-discovery that finds
// the same handlers costs no write and wakes no ClusterClass. A failed
// discovery keeps the handlers registered and recorded before; the condition
// says why it failed and controller-runtime's backoff paces the retries.
//
// The warm-up runnable registers, at start, the handlers that status already
// records, without calling any extension, then opens the registry's gate to
// WarmedUp. A dead extension therefore never stops the manager from
// starting. On taking the lead, the leader-sync runnable rebuilds the
// registry from the ExtensionConfigs as they are then and opens Rebuilt.
package extensionconfig
