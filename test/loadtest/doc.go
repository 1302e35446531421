// Package loadtest drives the drop-in core manager, or Cluster API's own,
// as a process on the local control plane against sample Runtime
// Extensions and accounts, per event, for what it cost: enqueues,
// reconciles and extension calls, next to the optimum (the ClusterClasses
// whose observable inputs changed, and the distinct calls among them) and
// to what Cluster API's scan mapping would have enqueued for the same
// event, or to what Cluster API's manager did in a comparison.
package loadtest
