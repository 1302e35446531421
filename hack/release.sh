#!/usr/bin/env bash
# Writes the drop-in's release as Cluster API ships one (make release),
# from binaries make release-binaries cross-built into
# BINARIES/<os>-<arch>[-<variant>]/ for each of PLATFORMS:
#
#   core-manager-image.tar        the drop-in's image: one multi-arch OCI
#                                 image index of PLATFORMS (rsc-image
#                                 --index), named IMAGE, in an OCI layout
#                                 archive (ctr images import, crane push)
#   cluster-api/CAPI_VERSION/     our release of clusterctl's core provider,
#     core-components.yaml        laid out as a clusterctl local repository
#     metadata.yaml               (providers: url:): Cluster API's core
#                                 components with IMAGE, and its metadata
#   runtime-sdk-controller-<os>-<arch>[-<variant>]
#                                 the read-only tools (observe mode,
#                                 who-uses), one binary per platform
#   <binary>-<os>-<arch>[-<variant>].cdx.json
#                                 a CycloneDX SBOM of every binary shipped
#                                 (each core-manager in the image, each
#                                 runtime-sdk-controller), from the
#                                 binary's own module list
#                                 (cyclonedx-gomod bin)
#   checksums.txt                 sha256sum of every other file
#
# The release is written beside OUT and moved there whole: a failure
# leaves no partial release.
#
# Usage:
#   release.sh all RSC_IMAGE CYCLONEDX_GOMOD PROVIDERS_DATA CAPI_VERSION PLATFORMS BINARIES VERSION REVISION IMAGE OUT
#   release.sh image RSC_IMAGE PLATFORMS BINARIES VERSION REVISION IMAGE OUT
#       the image alone, as make node-images writes the node's drop-in
set -euo pipefail
usage() {
	sed -n '/^# Usage:/,/^set /p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

# write_image RSC_IMAGE PLATFORMS BINARIES VERSION REVISION IMAGE OUT:
# the drop-in's image index, the same for the release and for the node.
write_image() {
	local rsc_image=$1 platforms=$2 binaries=$3 version=$4 revision=$5 image=$6 out=$7 p args=()
	for p in $platforms; do
		args+=(--binary "$binaries/${p//\//-}/core-manager")
	done
	"$rsc_image" --index "${args[@]}" --path-in-image /manager --title core-manager \
		--version "$version" --revision "$revision" --tag "$image" --out "$out"
}

# write_sbom CYCLONEDX_GOMOD PLATFORM BINARY VERSION OUT: the binary's
# modules, as its Go build information records them, and its hashes. No
# serial number and no timestamp, so that the same binaries give the same
# release, checksums included. cyclonedx-gomod v1.10.0 writes goos and
# goarch into every package URL from `go env`, not from the binary, so it
# runs with the binary's platform in the environment.
write_sbom() {
	local os arch variant
	IFS=/ read -r os arch variant <<<"$2"
	env GOOS="$os" GOARCH="$arch" ${variant:+GOARM=${variant#v}} \
		"$1" bin -json -noserial -notimestamp -version "$4" -output "$5" "$3"
	[ -s "$5" ] || { echo "release.sh: cyclonedx-gomod wrote no SBOM of $3" >&2; exit 1; }
}

# The release's folder while it is written, removed on any exit before it
# is moved into place (global: the EXIT trap runs after a function's
# locals are gone).
tmp=

write_all() {
	local rsc_image=$1 cyclonedx=$2 data=$3 capi_version=$4 platforms=$5 binaries=$6 version=$7 revision=$8 image=$9 out=${10}
	local p folder
	tmp="$out.tmp"
	rm -rf "$tmp"
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp"
	write_image "$rsc_image" "$platforms" "$binaries" "$version" "$revision" "$image" "$tmp/core-manager-image.tar"
	. "$(dirname "$0")/lib/clusterctl-release.sh"
	clusterctl_release "$data/core/components.yaml" "$data/core/metadata.yaml" "$tmp/cluster-api/$capi_version" core-components.yaml "$image"
	for p in $platforms; do
		folder=${p//\//-}
		write_sbom "$cyclonedx" "$p" "$binaries/$folder/core-manager" "$version" "$tmp/core-manager-$folder.cdx.json"
		cp "$binaries/$folder/runtime-sdk-controller" "$tmp/runtime-sdk-controller-$folder"
		write_sbom "$cyclonedx" "$p" "$tmp/runtime-sdk-controller-$folder" "$version" "$tmp/runtime-sdk-controller-$folder.cdx.json"
	done
	(cd "$tmp" && find . -type f ! -name checksums.txt | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum >checksums.txt)
	# RELEASE_DIR is the user's to set: replace only a release, or nothing.
	if [ -e "$out" ] && [ ! -e "$out/checksums.txt" ]; then
		echo "release.sh: $out exists and holds no release (no checksums.txt): not replacing it" >&2
		exit 1
	fi
	rm -rf "$out" && mv "$tmp" "$out"
	trap - EXIT
	echo "wrote $out: $(cd "$out" && find . -type f | wc -l) files"
}

[ $# -ge 1 ] || usage
command=$1
shift
case $command in
all)
	[ $# -eq 10 ] || usage
	for a in "$@"; do [ -n "$a" ] || usage; done
	write_all "$@"
	;;
image)
	[ $# -eq 7 ] || usage
	for a in "$@"; do [ -n "$a" ] || usage; done
	write_image "$@"
	;;
*) usage ;;
esac
