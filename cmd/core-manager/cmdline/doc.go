// Package cmdline is the drop-in core manager's command line: every flag
// Cluster API v1.14.2's core manager takes, with its name, type and default,
// so that the arguments of a clusterctl-installed capi-controller-manager
// Deployment work unchanged. A flag Cluster API's manager does not take is
// refused at start, by name.
package cmdline
