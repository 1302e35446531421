// Command runtime-sdk-controller runs the ExtensionConfig and ClusterClass
// controllers of Cluster API's Runtime SDK, with an index from
// ExtensionConfig to ClusterClass so that each event reconciles only the
// ClusterClasses it can change, without the rest of Cluster API's manager:
// for observe mode (--read-only) beside a stock Cluster API, for the load
// tool, and for a cluster where no Cluster API manager runs its controllers.
//
// It runs against the cluster named by --kubeconfig, $KUBECONFIG or the
// in-cluster configuration. It starts no control plane of its own: `make
// run` (bin/rsc-dev) does local runs.
package main
