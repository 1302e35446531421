#!/usr/bin/env bash
# Renders what Cluster API v1.14.2's providers need on the local control
# plane into one directory, from the modules hack/capi-providers pins:
#   <provider>/crds.yaml and <provider>/webhooks.yaml, kustomize's rendering
#     of its config/crd and config/webhook (the CRDs carry the contract
#     labels; the webhooks still name an in-cluster Service, which the
#     harness points at 127.0.0.1);
#   <provider>/components.yaml, kustomize's rendering of its config/default,
#     as Cluster API's release renders its components files (variables
#     still in, images and pull policy as the module has them), and
#     test-extension/components.yaml, the test extension's, for the real
#     node, which runs them as Pods;
#   templates/, Cluster API's own e2e ClusterClass and Cluster templates for
#     the in-memory provider (the flow's topology flavor and the scale
#     e2e's in-memory-scale flavor), and config/docker.yaml, their variables.
# Usage: render-capi-providers.sh GO KUBECTL OUT_DIR
set -euo pipefail
go_bin=$1 kubectl=$2 out=$3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/capi-providers" && pwd)
core=$(cd "$root" && "$go_bin" list -m -f '{{.Dir}}' sigs.k8s.io/cluster-api)
test=$(cd "$root" && "$go_bin" list -m -f '{{.Dir}}' sigs.k8s.io/cluster-api/test)

tmp="$out.tmp"
rm -rf "$tmp" && mkdir -p "$tmp/templates"
render() { # name config-dir
	mkdir -p "$tmp/$1"
	"$kubectl" kustomize "$2/crd" >"$tmp/$1/crds.yaml"
	"$kubectl" kustomize "$2/webhook" >"$tmp/$1/webhooks.yaml"
	"$kubectl" kustomize "$2/default" >"$tmp/$1/components.yaml"
}
render core "$core/core/config"
render bootstrap-kubeadm "$core/bootstrap/kubeadm/config"
render control-plane-kubeadm "$core/controlplane/kubeadm/config"
render infrastructure-docker "$test/infrastructure/docker/config"
mkdir -p "$tmp/test-extension"
"$kubectl" kustomize "$test/extension/config/default" >"$tmp/test-extension/components.yaml"
templates="$test/e2e/data/infrastructure-docker/main"
cp "$templates/clusterclass-in-memory.yaml" "$templates/cluster-template-in-memory-topology.yaml" \
	"$templates/cluster-template-in-memory-scale.yaml" "$tmp/templates/"
cp "$test/e2e/config/docker.yaml" "$tmp/templates/docker.yaml"
chmod -R u+w "$tmp"
rm -rf "$out" && mv "$tmp" "$out"
