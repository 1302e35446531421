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

// Package capinode installs Cluster API v1.14.2's components on the lab's
// real node and serves them to package capiflow as the management cluster.
// It installs them the three ways Cluster API users do, and by hand:
//
//   - Install: each provider's config/default rendered by kustomize from
//     its module (make capi-providers), its variables substituted by
//     clusterctl's own processor, and every object applied unchanged but
//     for each Deployment's image (one of the node's, rsc.lab/..., with
//     imagePullPolicy IfNotPresent as Cluster API's release sets it) and
//     the core's replicas;
//   - Attach, after clusterctl init (ClusterctlConfig, Clusterctl, with
//     make clusterctl-repository's repositories) or the Cluster API
//     Operator (InstallOperator, OperatorProviders): it waits for what they
//     installed.
//
// cert-manager's API is real: its own CRDs, from its release, so that
// Certificates and Issuers are stored as the components files write them
// and clusterctl's check of an externally provisioned cert-manager passes.
// Its controllers cannot be built here (the module proxy serves its main
// module, not its command modules), so this package runs their stand-in,
// the one part that is not the real thing: a loop that writes the Secret
// each Certificate would produce (a self-signed certificate for its
// dnsNames) and puts that CA where cert-manager's CA injector would (the
// caBundle of every CRD conversion and webhook configuration annotated
// with cert-manager.io/inject-ca-from), again whenever an object is
// re-created.
//
// As the management cluster, the test extension's ExtensionConfig names
// its Service, metrics are read from the Pods, a restarted container fails
// the flow unless the test said a fault of its own caused it
// (ExpectRestarts), and Remove empties the node for the next install.
package capinode
