// Package differential runs one fixture under Cluster API v1.14.2's own
// core manager (bin/capi-baseline) and under the drop-in core manager
// (cmd/core-manager), each on a fresh local control plane with the same sample extensions, and compares
// what each wrote, field by field: ExtensionConfig status, ClusterClass
// status, and the ownerReferences on the templates ClusterClasses use.
//
// Every difference is either a bug to fix or listed in the allow-list with
// its reason. The package is for tests; the controller never links it.
package differential
