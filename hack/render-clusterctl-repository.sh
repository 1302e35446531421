#!/usr/bin/env bash
# Writes clusterctl repositories as local folders, the way forks and
# air-gapped users ship providers (clusterctl's "local repository":
# <base>/<provider label>/<version>/<components file> with metadata.yaml
# beside it), from what make capi-providers rendered out of Cluster API
# v1.14.2's released modules. Nothing of Cluster API's is committed.
#
#   <out>/cluster-api/: Cluster API's release as it ships it:
#     cluster-api/VERSION/core-components.yaml, bootstrap-kubeadm/...,
#     control-plane-kubeadm/..., each with its metadata.yaml (make
#     capi-providers copies the module's root one), images at
#     registry.k8s.io/cluster-api/NAME:VERSION and imagePullPolicy
#     IfNotPresent (its make manifest-modification); the Docker provider and
#     the test extension as its development release ships them (make
#     release-manifests-dev, manifest-modification-dev:
#     infrastructure-components-development.yaml and
#     runtime-extension-components-development.yaml, images at
#     gcr.io/k8s-staging-cluster-api/NAME:VERSION) with the e2e's metadata.
#     One difference: the test extension's pull policy is IfNotPresent too;
#     Cluster API's Makefile sets the Docker provider's twice instead
#     (manifest-modification-dev), which would leave it at Always and have
#     a node without a registry pull it forever.
#   <out>/drop-in/: our own release of the core provider, cluster-api at
#     VERSION: Cluster API's core components with the drop-in's image, and
#     Cluster API's metadata.yaml (the same contract).
#
# Everything is read from PROVIDERS_DATA (make capi-providers' rendering of
# the released modules); a missing or empty file fails, naming it, and
# leaves no repository behind.
# Usage: render-clusterctl-repository.sh PROVIDERS_DATA VERSION DROP_IN_IMAGE OUT_DIR
set -euo pipefail
if [ $# -ne 4 ] || [ -z "$2" ] || [ -z "$3" ]; then
	echo "usage: render-clusterctl-repository.sh PROVIDERS_DATA VERSION DROP_IN_IMAGE OUT_DIR" >&2
	exit 2
fi
data=$1 version=$2 drop_in_image=$3 out=$4

. "$(dirname "$0")/lib/clusterctl-release.sh"

tmp="$out.tmp"
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
# release SOURCE_FOLDER LABEL FILE IMAGE [BASE]: one provider's release
# folder under BASE (default cluster-api), from its folder in
# PROVIDERS_DATA.
release() {
	clusterctl_release "$data/$1/components.yaml" "$data/$1/metadata.yaml" "$tmp/${5:-cluster-api}/$2/$version" "$3" "$4"
}
registry=registry.k8s.io/cluster-api
staging=gcr.io/k8s-staging-cluster-api
release core cluster-api core-components.yaml "$registry/cluster-api-controller:$version"
release bootstrap-kubeadm bootstrap-kubeadm bootstrap-components.yaml "$registry/kubeadm-bootstrap-controller:$version"
release control-plane-kubeadm control-plane-kubeadm control-plane-components.yaml "$registry/kubeadm-control-plane-controller:$version"
release infrastructure-docker infrastructure-docker infrastructure-components-development.yaml "$staging/capd-manager:$version"
release test-extension runtime-extension-test-extension runtime-extension-components-development.yaml "$staging/test-extension:$version"
release core cluster-api core-components.yaml "$drop_in_image" drop-in
rm -rf "$out" && mv "$tmp" "$out"
