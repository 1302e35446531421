# Sourced by render-clusterctl-repository.sh and release.sh: the one way a
# provider's clusterctl release folder is written here, for Cluster API's
# own providers and for the drop-in's release alike.

# clusterctl_release COMPONENTS METADATA DIR FILE IMAGE writes DIR, a
# provider's release folder as clusterctl reads it (a GitHub release's
# assets, or a local repository's <provider>/<version>/): FILE, the
# components file COMPONENTS with its manager's image set to IMAGE and its
# pull policy IfNotPresent (Cluster API's make manifest-modification), and
# METADATA as metadata.yaml. A missing or empty input fails, naming it, as
# does a components file with other than one manager image: the image is
# what the release is about, and a second one would be left unset.
clusterctl_release() {
	local components=$1 metadata=$2 dir=$3 file=$4 image=$5 f images
	for f in "$components" "$metadata"; do
		if [ ! -s "$f" ]; then
			echo "${0##*/}: $f is missing or empty" >&2
			return 1
		fi
	done
	images=$(grep -c '^        image: ' "$components" || true)
	if [ "$images" != 1 ]; then
		echo "${0##*/}: $components has $images manager images, want one" >&2
		return 1
	fi
	mkdir -p "$dir"
	sed -e "s|^        image: .*|        image: $image|" \
		-e 's|^        imagePullPolicy: Always$|        imagePullPolicy: IfNotPresent|' "$components" >"$dir/$file"
	cp "$metadata" "$dir/metadata.yaml"
	chmod u+w "$dir/metadata.yaml"
}
