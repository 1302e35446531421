// Command runtime-sdk-controller runs the ExtensionConfig and ClusterClass
// controllers of Cluster API's Runtime SDK, with an index from
// ExtensionConfig to ClusterClass so that each event reconciles only the
// ClusterClasses it can change.
//
// It runs against the cluster named by --kubeconfig, $KUBECONFIG or the
// in-cluster configuration, or with --local against a local control plane it
// starts itself from the binaries in bin/.
package main
