// Package scanmapping reproduces how Cluster API v1.14 maps an
// ExtensionConfig event to ClusterClasses (a scan of all of them), as the
// baseline that the benchmarks, the load tool and the read-only observe
// mode compare the index against. Nothing in the controllers uses it.
package scanmapping
