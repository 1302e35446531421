// Package e2e runs Cluster API v1.14.2's own provisioning flow on a real
// management cluster on the local control plane (test/capimanagement): its
// test Runtime Extension, CABPK, KCP and the in-memory provider, with the
// drop-in core manager and, side by side, Cluster API's own. Its tests own
// no code of their own beyond the flow and its checks.
package e2e
