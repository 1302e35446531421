// Package capimanagement runs a real Cluster API v1.14.2 management cluster
// on the local control plane, for tests and tools only: kube-apiserver and
// etcd, a core manager (Cluster API's own or the drop-in), CABPK, KCP, the
// in-memory provider and Cluster API's test Runtime Extension, each as its
// own process built unmodified by `make capi-providers`.
//
// Every process gets its own 127.0.0.1 ports and certificate directory, and
// every webhook and conversion webhook points at https://127.0.0.1:<port> of
// the process that serves it. The in-memory provider's ports (19000 and
// 20000 and up) cannot move, so Start holds a file lock shared by every
// test and tool that starts it.
package capimanagement
