// Package observe is the read-only mode: run beside Cluster API's own
// manager, it discovers nothing and writes nothing, but watches the
// ExtensionConfigs Cluster API maintains and exports, per event, how many
// ClusterClass reconciles Cluster API's scan mapping causes and how many the
// index mapping would, so an operator can measure the waste on a live
// cluster before switching.
package observe
