// Package manifests tests the kustomize manifests under config/ that install
// observe mode: it renders config/default with kustomize's Go API and
// applies the result to a real kube-apiserver. It lives in the lab module so
// that kustomize stays out of the product's go.mod.
package manifests
