// Package config holds the manifests that install the controller (kustomize
// bases under crd/, rbac/, manager/ and default/). Its tests render them
// with kustomize's Go API and apply them to a real apiserver.
package config
