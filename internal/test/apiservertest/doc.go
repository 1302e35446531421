// Package apiservertest is the one place tests get a real control plane from: it
// finds the kube-apiserver and etcd that `make tools` built, starts them with
// controller-runtime's envtest, installs the CRDs committed under
// config/crd/bases, and hands out clients and per-test namespaces.
//
// A package with envtest tests starts one control plane for all its tests:
//
//	var env *apiservertest.Env
//
//	func TestMain(m *testing.M) { os.Exit(apiservertest.Run(m, &env)) }
package apiservertest
