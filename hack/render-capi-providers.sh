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
#   <provider>/metadata.yaml, the metadata clusterctl reads beside its
#     components file: the module's root metadata.yaml for the core, CABPK
#     and KCP, as Cluster API's release ships it, and the e2e's for the
#     Docker provider and the test extension, as its e2e repository does;
#   templates/, Cluster API's own e2e ClusterClass and Cluster templates for
#     the in-memory provider (the flow's topology flavor and the scale
#     e2e's in-memory-scale flavor), and config/docker.yaml, their variables.
# Usage: render-capi-providers.sh GO KUBECTL OUT_DIR
set -euo pipefail
go_bin=$1 kubectl=$2 out=$3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/capi-providers" && pwd)
# go list -m names a module's folder only once it is downloaded.
(cd "$root" && "$go_bin" mod download sigs.k8s.io/cluster-api sigs.k8s.io/cluster-api/test)
core=$(cd "$root" && "$go_bin" list -m -f '{{.Dir}}' sigs.k8s.io/cluster-api)
test=$(cd "$root" && "$go_bin" list -m -f '{{.Dir}}' sigs.k8s.io/cluster-api/test)

tmp="$out.tmp"
rm -rf "$tmp" && mkdir -p "$tmp/templates"
release_metadata="$core/metadata.yaml"
e2e_metadata="$test/e2e/data/shared/main/metadata.yaml"
render() { # name config-dir metadata
	mkdir -p "$tmp/$1"
	"$kubectl" kustomize "$2/crd" >"$tmp/$1/crds.yaml"
	"$kubectl" kustomize "$2/webhook" >"$tmp/$1/webhooks.yaml"
	"$kubectl" kustomize "$2/default" >"$tmp/$1/components.yaml"
	cp "$3" "$tmp/$1/metadata.yaml"
}
render core "$core/core/config" "$release_metadata"
render bootstrap-kubeadm "$core/bootstrap/kubeadm/config" "$release_metadata"
render control-plane-kubeadm "$core/controlplane/kubeadm/config" "$release_metadata"
render infrastructure-docker "$test/infrastructure/docker/config" "$e2e_metadata"
mkdir -p "$tmp/test-extension"
"$kubectl" kustomize "$test/extension/config/default" >"$tmp/test-extension/components.yaml"
cp "$e2e_metadata" "$tmp/test-extension/metadata.yaml"
templates="$test/e2e/data/infrastructure-docker/main"
cp "$templates/clusterclass-in-memory.yaml" "$templates/cluster-template-in-memory-topology.yaml" \
	"$templates/cluster-template-in-memory-scale.yaml" "$tmp/templates/"
cp "$test/e2e/config/docker.yaml" "$tmp/templates/docker.yaml"
chmod -R u+w "$tmp"
rm -rf "$out" && mv "$tmp" "$out"
