// Package scheme builds the runtime.Scheme shared by the manager, the
// command-line tools and the tests: Kubernetes core types plus Cluster API's
// ClusterClass (core v1beta2) and ExtensionConfig (runtime v1beta2).
package scheme
