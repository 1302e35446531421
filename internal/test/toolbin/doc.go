// Package toolbin finds the binaries that `make tools` builds into bin/
// (kube-apiserver, etcd, controller-gen) and checks that they run, so a
// missing or broken build fails with the binary's name and the command that
// rebuilds it.
package toolbin
