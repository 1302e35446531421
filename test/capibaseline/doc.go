// Package capibaseline runs Cluster API v1.14.2's own core manager,
// unmodified, as built by `make capi-baseline` into bin/capi-baseline, on a
// local control plane: with the core CRDs copied from its module, a
// throw-away webhook certificate, ports of its own, and the ClusterTopology
// and RuntimeSDK feature gates on. It is the reference the differential
// tests compare our status with, and the baseline the tools measure against.
//
// It is for tests and tools; the controller binary never links it.
package capibaseline
