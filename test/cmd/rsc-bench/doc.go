// Command rsc-bench measures runtime-sdk-controller: `loadtest` runs the
// drop-in core manager against many objects and counts what each event
// costs next to the optimum and to Cluster API's scan (or, with --compare
// capi, to Cluster API's own manager); `drill` runs the controller binary
// through faults (a flapping extension, kube-apiserver killed, a long soak)
// and random events checked against a fresh controller. Both start a fresh
// local control plane from the binaries in bin/. `scale` runs Cluster API's
// scale shape on a real management cluster (test/capimanagement) under the
// drop-in core manager and under Cluster API's own, side by side.
//
// It is a tool apart from the controller binary, which links none of it.
package main
