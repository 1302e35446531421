// Package observe is observe mode, the command of bin/runtime-sdk-controller:
// run beside Cluster API's own manager, it discovers nothing and writes
// nothing, but watches the ExtensionConfigs Cluster API maintains and
// exports, per event, how many ClusterClass reconciles Cluster API's scan
// mapping causes and how many the index mapping would, so an operator can
// measure the waste on a live cluster before swapping in the drop-in.
// NewManager builds its manager.
package observe
