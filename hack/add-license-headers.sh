#!/usr/bin/env bash
# Puts Cluster API's Apache-2.0 header, with our copyright line
# (hack/license-header.txt, the template golangci-lint's goheader checks),
# at the top of every Go file of every module that lacks it: tracked files
# and new ones git does not ignore (make license-headers).
#
# Usage: add-license-headers.sh [--check]
#   --check changes nothing: it lists the files without the header and
#   fails if there are any (make lint runs it, for the modules golangci-lint
#   does not lint).
#
# Generated files ("Code generated ... DO NOT EDIT.") keep what their
# generator writes, as golangci-lint skips them; so do Go files under
# testdata/, which are inputs. A file that starts with another copyright
# notice is listed, never given a second one.
set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The year new headers carry; goheader accepts any year.
YEAR=2026
check=false
case ${1:-} in
--check) check=true ;;
"") ;;
*)
	echo "usage: $0 [--check]" >&2
	exit 2
	;;
esac

header=$(printf '/*\n%s\n*/\n' "$(sed "s/{{ COPYRIGHT_YEAR }}/$YEAR/" hack/license-header.txt)")
lines=$(printf '%s\n' "$header" | wc -l)

# constraint_free FILE prints FILE without its leading build constraint
# (a //go:build line and the blank line after it).
constraint_free() {
	awk 'NR == 1 && /^\/\/go:build / { skip = 1; next } skip && /^$/ { skip = 0; next } { skip = 0; print }' "$1"
}

missing=()
foreign=()
while IFS= read -r file; do
	case $file in */testdata/* | testdata/*) continue ;; esac
	[ -f "$file" ] || continue
	if grep -qE '^// Code generated .* DO NOT EDIT\.$' "$file"; then
		continue
	fi
	# The header as it stands, its year read as ours; gofmt keeps a build
	# constraint above it.
	top=$(constraint_free "$file" | sed -n "1,${lines}p" | sed -E "2s/^Copyright [0-9]{4} /Copyright $YEAR /")
	if [ "$top" = "$header" ]; then
		continue
	fi
	if sed -n '1,5p' "$file" | grep -i copyright >/dev/null; then
		foreign+=("$file")
		continue
	fi
	missing+=("$file")
done < <(git ls-files --cached --others --exclude-standard -- '*.go')

if [ "${#foreign[@]}" -gt 0 ]; then
	echo "license headers: these files start with another copyright notice; give them hack/license-header.txt's by hand:" >&2
	printf '  %s\n' "${foreign[@]}" >&2
fi
if $check; then
	if [ "${#missing[@]}" -gt 0 ]; then
		echo "license headers: ${#missing[@]} Go files lack the license header; make license-headers adds it:" >&2
		printf '  %s\n' "${missing[@]}" >&2
	fi
	[ "${#missing[@]}" -eq 0 ] && [ "${#foreign[@]}" -eq 0 ]
	exit
fi
for file in "${missing[@]}"; do
	{
		first=$(head -n 1 "$file")
		if [[ $first == //go:build\ * ]]; then
			printf '%s\n\n' "$first"
		fi
		printf '%s\n\n' "$header"
		constraint_free "$file"
	} >"$file.license" && mv "$file.license" "$file"
done
echo "license headers: added to ${#missing[@]} Go files"
[ "${#foreign[@]}" -eq 0 ]
