// Package setup wires the ExtensionConfig and ClusterClass controllers into
// any controller-runtime manager, around one handler registry, runtime
// client and call cache: the standalone controller's (package standalone)
// and the drop-in core manager's.
package setup
