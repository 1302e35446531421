// Package localclustertest adds to a local control plane what only tools
// and tests need: users of their own name, so that an audit log tells each
// process's requests apart (the load tool, the Cluster API management
// cluster); the audit log itself; and a crash of kube-apiserver (the
// restart drill).
//
// Package localcluster holds only what a local control plane needs to run,
// so it carries none of this. Tools reach the control plane through two
// seams instead, and no method exists in localcluster that only a tool
// calls:
//   - localcluster.Options.APIServerArgs, extra kube-apiserver flags, which
//     turn the audit log on;
//   - the data directory, whose layout is already a contract between runs:
//     pki/ca.crt and pki/ca.key are the CA every client certificate is
//     signed by, and run/kube-apiserver.pid names the running
//     kube-apiserver.
//
// The tests here break when that layout moves.
package localclustertest
