// Package localcluster runs a local Kubernetes control plane, etcd and
// kube-apiserver built by `make tools` into bin/, for `--local` runs and the
// load tool.
//
// Unlike envtest (which the tests use), it keeps everything in one data
// directory that survives restarts: etcd's data, the certificates, the ports
// it picked and a kubeconfig. Objects created in one run are there in the
// next; deleting the directory (`make clean-local`) starts from scratch.
//
// Child processes run in their own process group, are stopped in order
// (kube-apiserver, then etcd) by Stop, and receive SIGTERM from the kernel if
// the parent dies first, so no run leaves orphans behind.
package localcluster
