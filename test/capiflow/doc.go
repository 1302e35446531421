// Package capiflow is Cluster API's own provisioning flow, as its e2e runs
// it with its test extension, CABPK, KCP and the in-memory provider, for
// any management cluster: the lab's processes on a local control plane
// (test/e2e) or Pods on the real node (test/node). It returns what it saw
// and measured: step times, the hooks the test extension recorded, its
// requests by hook, the core manager's reconciles, and the status both
// managers must agree on.
package capiflow
