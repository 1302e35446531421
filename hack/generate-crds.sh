#!/usr/bin/env bash
# Generates the CRDs we serve from the cluster-api api module's packages.
# controller-gen writes one CRD per kind in those packages; we keep only the
# kinds this project serves, so the output does not depend on what else
# cluster-api defines.
#
# usage: generate-crds.sh CONTROLLER_GEN OUT_DIR "PACKAGES" "FILES"
set -euo pipefail

controller_gen=$1
out_dir=$2
read -r -a packages <<<"$3"
read -r -a files <<<"$4"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

paths=()
for p in "${packages[@]}"; do paths+=("paths=$p"); done

"$controller_gen" crd "${paths[@]}" output:crd:dir="$work"

mkdir -p "$out_dir"
for f in "${files[@]}"; do
	if [[ ! -f "$work/$f" ]]; then
		echo "controller-gen did not produce $f (got: $(ls "$work" | tr '\n' ' '))" >&2
		exit 1
	fi
	cp "$work/$f" "$out_dir/$f"
done
