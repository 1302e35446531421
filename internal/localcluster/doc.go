// Package localcluster runs a local Kubernetes control plane, etcd and
// kube-apiserver built by `make tools` into bin/, for `--local` runs, the
// dev launcher and the tools.
//
// Unlike envtest (which the tests use), it keeps everything in one data
// directory that survives restarts: etcd's data, the certificates, the ports
// it picked and a kubeconfig. Objects created in one run are there in the
// next; deleting the directory (`make clean-local`) starts from scratch.
//
// Child processes run in their own process group, are stopped in order
// (kube-apiserver, then etcd) by Stop, and receive SIGTERM from the kernel if
// the parent dies first, so no run leaves orphans behind.
//
// It ships in the controller, so it holds only what `--local` runs. What
// only tools add (users of their own name, an audit log, killing
// kube-apiserver) lives in test/localclustertest, which reaches the control
// plane through Options.APIServerArgs and the data directory's layout:
// pki/ca.crt and pki/ca.key sign every client certificate, and
// run/<binary>.pid names each running process. A later run already depends
// on that layout, so keeping it is no new promise.
package localcluster
