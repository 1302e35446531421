// Package capinode installs Cluster API v1.14.2's components on the lab's
// real node the way its release ships them: each provider's config/default
// rendered by kustomize from its module (make capi-providers), its
// variables substituted by clusterctl's own processor, and every object
// applied unchanged (ServiceAccounts, ClusterRoles, bindings, Deployments,
// Services, webhook configurations, CRDs) but for two things:
//
//   - each Deployment's image, one of the node's (rsc.lab/...), with
//     imagePullPolicy IfNotPresent as Cluster API's release sets it;
//   - cert-manager's Certificates and Issuers. cert-manager's controllers
//     cannot be built here (the module proxy serves its main module, not
//     its command modules), so this package is its stand-in, the one part
//     that is not the real thing: it writes the Secret each Certificate
//     would produce (a self-signed certificate for its dnsNames) and puts
//     that CA where cert-manager's CA injector would (the caBundle of every
//     CRD conversion and webhook configuration annotated with
//     cert-manager.io/inject-ca-from).
//
// It then serves package capiflow as the management cluster: the test
// extension's ExtensionConfig names its Service, metrics are read from the
// Pods, and a restarted container fails the flow.
package capinode
