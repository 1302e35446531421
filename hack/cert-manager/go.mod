// Module cert-manager pins the cert-manager release whose CRDs the real
// node installs (deploy/crds of its main module), so that clusterctl's
// externally provisioned cert-manager check has its real API to talk to.
// Nothing of it is built: the module proxy serves its main module but not
// its command modules (cmd/controller, cmd/cainjector, cmd/webhook), so its
// controllers cannot be built here.
module github.com/runtime-sdk-controller/runtime-sdk-controller/hack/cert-manager

go 1.26.0

require github.com/cert-manager/cert-manager v1.21.2
