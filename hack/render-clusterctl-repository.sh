#!/usr/bin/env bash
# Writes clusterctl repositories as local folders, the way forks and
# air-gapped users ship providers (clusterctl's "local repository":
# <base>/<provider label>/<version>/<components file> with metadata.yaml
# beside it), from what make capi-providers rendered out of Cluster API
# v1.14.2's released modules. Nothing of Cluster API's is committed.
#
#   <out>/cluster-api/: Cluster API v1.14.2 as its release ships it:
#     cluster-api/v1.14.2/core-components.yaml, bootstrap-kubeadm/...,
#     control-plane-kubeadm/..., each with the root metadata.yaml of the
#     module, images at registry.k8s.io/cluster-api/NAME:v1.14.2 and
#     imagePullPolicy IfNotPresent (its make manifest-modification); the
#     Docker provider and the test extension as its development release
#     ships them (make release-manifests-dev, manifest-modification-dev:
#     infrastructure-components-development.yaml and
#     runtime-extension-components-development.yaml, images at
#     gcr.io/k8s-staging-cluster-api/NAME:v1.14.2) with the e2e's metadata.
#     One difference: the test extension's pull policy is IfNotPresent too;
#     Cluster API's Makefile sets the Docker provider's twice instead
#     (manifest-modification-dev), which would leave it at Always and have
#     a node without a registry pull it forever.
#   <out>/drop-in/: our own release of the core provider, cluster-api at
#     v1.14.2: Cluster API's core components with the drop-in's image, and
#     Cluster API's metadata.yaml (the same contract).
#
# Every file is checked at the end; a missing or empty one fails, naming it.
# Usage: render-clusterctl-repository.sh GO PROVIDERS_DATA DROP_IN_IMAGE OUT_DIR
set -euo pipefail
if [ $# -ne 4 ]; then
	echo "usage: render-clusterctl-repository.sh GO PROVIDERS_DATA DROP_IN_IMAGE OUT_DIR" >&2
	exit 2
fi
go_bin=$1 data=$2 drop_in_image=$3 out=$4
version=v1.14.2
modules=$(cd "$(dirname "${BASH_SOURCE[0]}")/capi-providers" && pwd)
(cd "$modules" && "$go_bin" mod download sigs.k8s.io/cluster-api sigs.k8s.io/cluster-api/test)
core=$(cd "$modules" && "$go_bin" list -m -f '{{.Dir}}' sigs.k8s.io/cluster-api)
test=$(cd "$modules" && "$go_bin" list -m -f '{{.Dir}}' sigs.k8s.io/cluster-api/test)
if [ -z "$core" ] || [ -z "$test" ]; then
	echo "render-clusterctl-repository: Cluster API's modules are not in the module cache" >&2
	exit 1
fi
release_metadata="$core/metadata.yaml"
e2e_metadata="$test/e2e/data/shared/main/metadata.yaml"

need() { # file...
	for f in "$@"; do
		if [ ! -s "$f" ]; then
			echo "render-clusterctl-repository: $f is missing or empty" >&2
			exit 1
		fi
	done
}

tmp="$out.tmp"
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
# release SOURCE_FOLDER LABEL FILE IMAGE METADATA [BASE]: one provider's
# release folder, its manager's image set and its pull policy IfNotPresent.
release() {
	local source=$data/$1/components.yaml dir=$tmp/${6:-cluster-api}/$2/$version
	need "$source" "$5"
	mkdir -p "$dir"
	local images
	images=$(grep -c '^        image: ' "$source" || true)
	if [ "$images" != 1 ]; then
		echo "render-clusterctl-repository: $source has $images manager images, want one" >&2
		exit 1
	fi
	sed -e "s|^        image: .*|        image: $4|" \
		-e 's|^        imagePullPolicy: Always$|        imagePullPolicy: IfNotPresent|' "$source" >"$dir/$3"
	cp "$5" "$dir/metadata.yaml"
	chmod u+w "$dir/metadata.yaml"
}
registry=registry.k8s.io/cluster-api
staging=gcr.io/k8s-staging-cluster-api
release core cluster-api core-components.yaml "$registry/cluster-api-controller:$version" "$release_metadata"
release bootstrap-kubeadm bootstrap-kubeadm bootstrap-components.yaml "$registry/kubeadm-bootstrap-controller:$version" "$release_metadata"
release control-plane-kubeadm control-plane-kubeadm control-plane-components.yaml "$registry/kubeadm-control-plane-controller:$version" "$release_metadata"
release infrastructure-docker infrastructure-docker infrastructure-components-development.yaml "$staging/capd-manager:$version" "$e2e_metadata"
release test-extension runtime-extension-test-extension runtime-extension-components-development.yaml "$staging/test-extension:$version" "$e2e_metadata"
release core cluster-api core-components.yaml "$drop_in_image" "$release_metadata" drop-in

for f in cluster-api/cluster-api/$version/core-components.yaml \
	cluster-api/bootstrap-kubeadm/$version/bootstrap-components.yaml \
	cluster-api/control-plane-kubeadm/$version/control-plane-components.yaml \
	cluster-api/infrastructure-docker/$version/infrastructure-components-development.yaml \
	cluster-api/runtime-extension-test-extension/$version/runtime-extension-components-development.yaml \
	drop-in/cluster-api/$version/core-components.yaml; do
	need "$tmp/$f" "$(dirname "$tmp/$f")/metadata.yaml"
done
rm -rf "$out" && mv "$tmp" "$out"
