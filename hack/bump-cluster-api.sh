#!/usr/bin/env bash
# Moves the project to another Cluster API release: hack/bump-cluster-api.sh
# vX.Y.Z (or make bump-cluster-api CAPI_VERSION_NEW=vX.Y.Z).
#
# hack/cluster-api-version is the one place that names the release. This
# script writes it, and everything that derives from it:
#   - internal/capiversion's constant, which code reads;
#   - hack/capi-baseline and hack/capi-providers, which build Cluster API's
#     own binaries: their requirements are dropped and read afresh from the
#     release, so that they are exactly the release's go.mod (a move to an
#     older release must lower them too);
#   - the product module and the drop-in's (cmd/core-manager): every module
#     they share with the release is pinned at the release's version, which
#     is what the release-set tests hold them to;
#   - the lab's (test/) requirement of Cluster API's api module;
#   - every mention of the old version in code and docs, except the
#     committed measurements (docs/compare, docs/scale, docs/e2e,
#     docs/results.md), which say what ran when they were taken;
#   - the CRDs generated from the api module (make generate).
# Then make test says what changed: the release-set, parity and
# differential tests run against the new release's own core manager.
set -o errexit -o nounset -o pipefail
# sort and join must agree on the order of module paths.
export LC_ALL=C

new=${1:-}
go=${GO:-go}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

if [[ ! $new =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
	echo "usage: $0 vX.Y.Z (a Cluster API release)" >&2
	exit 2
fi
old=$(cat hack/cluster-api-version)
if [[ $new == "$old" ]]; then
	echo "Cluster API $new is in place already" >&2
	exit 2
fi
# A move that fails half-way is undone with git checkout; a tree with
# changes of its own could not be.
if ! git diff --quiet HEAD; then
	echo "the tree has uncommitted changes: commit or stash them first" >&2
	exit 2
fi
if ! "$go" list -m "sigs.k8s.io/cluster-api@$new" >/dev/null; then
	echo "the module proxy does not serve sigs.k8s.io/cluster-api $new" >&2
	exit 1
fi
echo "moving from Cluster API $old to $new"

capi=sigs.k8s.io/cluster-api

# drop_requirements removes every require line of the module in the
# current folder, so that the next go get and tidy read them afresh.
drop_requirements() {
	local mods
	mods=$(awk '/^require \(/ { block = 1; next } block && /^\)/ { block = 0; next }
		block && NF >= 2 && $1 !~ /^\/\// { print $1 } /^require [^(]/ { print $2 }' go.mod)
	if [[ -n $mods ]]; then
		# shellcheck disable=SC2046
		"$go" mod edit $(printf -- '-droprequire=%s ' $mods)
	fi
}

# build_list prints "module version" for every module of the current
# folder's build list, a replacement counted at its version.
build_list() {
	"$go" list -m -f '{{.Path}} {{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}' all | awk 'NF == 2'
}

# pin_to_release moves every module of the current folder's build list that
# the release also lists to the release's version, until none differs (a
# downgrade can pull another module below the release's: go get then
# raises it on the next round).
pin_to_release() {
	local round mismatched
	for round in 1 2 3 4; do
		mismatched=$(join <(build_list | sort -k1,1) <(sort -k1,1 "$release") | awk '$2 != $3 { print $1 "@" $3 }')
		if [[ -z $mismatched ]]; then
			return 0
		fi
		echo "  round $round: $(wc -w <<<"$mismatched") modules to the release's versions"
		# shellcheck disable=SC2086
		"$go" get $mismatched
		"$go" mod tidy
	done
	echo "$(pwd): modules still differ from the release's after 4 rounds:" >&2
	join <(build_list | sort -k1,1) <(sort -k1,1 "$release") | awk '$2 != $3' >&2
	exit 1
}

echo "hack/capi-baseline: Cluster API's core manager on its release's go.mod"
(
	cd hack/capi-baseline
	drop_requirements
	"$go" mod edit -replace="$capi/api=$capi/api@$new"
	"$go" get "$capi@$new"
	"$go" mod tidy
)
release=$(mktemp)
trap 'rm -f "$release"' EXIT
(cd hack/capi-baseline && build_list) >"$release"

echo "hack/capi-providers: its providers, test extension and clusterctl"
(
	cd hack/capi-providers
	drop_requirements
	"$go" mod edit -replace="$capi=$capi@$new" -replace="$capi/api=$capi/api@$new"
	"$go" get "$capi@$new" "$capi/api@$new" "$capi/test@$new"
	"$go" mod tidy
)

echo "the product module"
"$go" get "$capi@$new" "$capi/api@$new"
pin_to_release

echo "cmd/core-manager: the drop-in"
(
	cd cmd/core-manager
	"$go" mod edit -replace="$capi/api=$capi/api@$new"
	"$go" get "$capi@$new" "$capi/api@$new"
	pin_to_release
)

echo "test: the lab"
(
	cd test
	"$go" get "$capi@$new" "$capi/api@$new"
	"$go" mod tidy
)

old_re="\\b${old//./\\.}\\b"
echo "code and docs naming $old"
mapfile -t files < <(git grep -l -F "$old" -- ':!*go.sum' ':!*go.mod' ':!docs/compare/' ':!docs/scale/' ':!docs/e2e/' ':!docs/results.md' ':!hack/cluster-api-version')
if ((${#files[@]} > 0)); then
	sed -i "s/$old_re/$new/g" "${files[@]}"
	printf '  %s\n' "${files[@]}"
fi
# The go.mod files' comments name the release too; their requirements are
# go get's.
sed -i "/^[[:space:]]*\/\//s/$old_re/$new/g" go.mod cmd/core-manager/go.mod hack/capi-baseline/go.mod hack/capi-providers/go.mod test/go.mod

# The one place, last, so that a move that fails leaves it naming the
# release the tree is still on.
echo "$new" >hack/cluster-api-version
sed -i "s/^const Version = \".*\"$/const Version = \"$new\"/" internal/capiversion/version.go

echo "generated files"
make --no-print-directory generate

echo "Cluster API $new is in place. Run make test: the release-set, parity and differential tests compare the drop-in with $new's own core manager."
