// Package devrun is the development launcher behind `make run`: a Cluster
// API management cluster on the local control plane with the drop-in core
// manager (bin/core-manager) as its core manager, beside Cluster API's
// CABPK, KCP, in-memory provider and test Runtime Extension
// (test/capimanagement runs them, each as its own process), and the sample
// Runtime Extension. It applies the examples (ExtensionConfigs,
// ClusterClasses in two namespaces, a Cluster), prints next steps that work
// as printed, and then a one-line summary of what the drop-in does
// whenever it changes: Clusters and their state, ClusterClass reconciles,
// extension requests per hook, response cache hits.
//
// It is a tool for people trying the drop-in on their machine; no shipped
// binary links it.
package devrun
