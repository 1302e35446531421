// Command runtime-sdk-controller holds the read-only tools a user runs
// beside a stock Cluster API before swapping its core manager for the
// drop-in (cmd/core-manager):
//
//   - observe mode (the command itself): watch the ExtensionConfigs Cluster
//     API maintains and export, per event, how many ClusterClass reconciles
//     Cluster API's scan mapping causes and how many the index would;
//   - who-uses: which ClusterClasses use an ExtensionConfig or a handler.
//
// Neither writes anything. Everything that reconciles is the drop-in.
// It runs against the cluster named by --kubeconfig, $KUBECONFIG or the
// in-cluster configuration.
package main
