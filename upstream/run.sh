#!/usr/bin/env bash
# Applies the patch series in upstream/patches to Cluster API's released
# source and checks it with Cluster API's own tests and linter, or builds
# Cluster API's core manager from the patched tree.
#
# The source is never copied into this repository: it is taken from the Go
# module cache (go mod download, checked against hack/capi-providers/go.sum)
# at the version hack/cluster-api-version names, with its nested api and
# test modules put back where Cluster API's go.mod replaces them (./api,
# ./test), into a scratch folder.
#
# Usage:
#   run.sh test  WORK_DIR BIN_DIR LINT  Cluster API's tests of the touched
#       packages on the released tree, then the series, the same tests and
#       Cluster API's golangci-lint configuration on the patched tree;
#       writes WORK_DIR/summary.md.
#   run.sh build WORK_DIR OUT           Cluster API's core manager from the
#       patched tree, as OUT.
# GO names the go command (default: go).
set -euo pipefail
export LC_ALL=C

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
go_bin=${GO:-go}
version=$(cat "$root/hack/cluster-api-version")
patches=("$root"/upstream/patches/*.patch)

# The packages the series touches, and those whose tests start the
# ClusterClass controller (core/main.go's wiring aside): their tests are
# Cluster API's own, run before and after the series. Cluster API's test
# module has one more such test, run from its own folder.
packages=(
	./core/reconcilers/clusterclass/...
	./core/reconcilers/extensionconfig/...
	./core/reconcilers/topology/cluster/...
	./core/webhooks/admission/test/...
	./internal/topology/upgrade/...
	./internal/runtime/...
	./exp/runtime/...
	./util/index/...
)
test_module_packages=(./extension/handlers/topologymutation/...)
# What the series changes, for the linter.
lint_packages=(./util/index/... ./core/reconcilers/clusterclass/... ./core/reconcilers/topology/cluster/... ./internal/topology/upgrade/...)

# module_dir MODULE: the module's folder in the Go module cache, downloaded
# if needed; exits when there is none, so that a failed download never
# turns into a copy of something else.
module_dir() {
	local dir
	dir=$(cd "$root/hack/capi-providers" && "$go_bin" mod download -json "$1@$version" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	if [[ -z $dir || ! -f $dir/go.mod ]]; then
		echo "no folder for $1@$version in the Go module cache" >&2
		exit 1
	fi
	echo "$dir"
}

# source_tree DIR [apply]: a fresh copy of the released source in DIR as a
# git repository of one commit, with the series applied on top if asked.
source_tree() {
	local dir=$1
	local core api test
	core=$(module_dir sigs.k8s.io/cluster-api)
	api=$(module_dir sigs.k8s.io/cluster-api/api)
	test=$(module_dir sigs.k8s.io/cluster-api/test)
	rm -rf "$dir"
	mkdir -p "$dir/api" "$dir/test"
	cp -R "$core/." "$dir/"
	cp -R "$api/." "$dir/api/"
	cp -R "$test/." "$dir/test/"
	chmod -R u+w "$dir"
	local git=(git -C "$dir" -c user.name=upstream -c user.email=upstream@example.invalid -c commit.gpgsign=false)
	"${git[@]}" init -q
	"${git[@]}" add -A
	"${git[@]}" commit -q -m "Cluster API $version, from the Go module cache"
	if [[ ${2:-} == apply ]]; then
		"${git[@]}" am -q --committer-date-is-author-date "${patches[@]}"
		echo "applied ${#patches[@]} patches to Cluster API $version in $dir:"
		"${git[@]}" log --format='  %h %s' "HEAD~${#patches[@]}..HEAD"
	fi
}

# run_tests DIR OUT: Cluster API's tests of the packages above, as go test
# -json events in OUT; returns go test's status.
run_tests() {
	local status=0
	(cd "$1" && KUBEBUILDER_ASSETS="$bin_dir" "$go_bin" test -count=1 -json "${packages[@]}") >"$2" || status=$?
	(cd "$1/test" && KUBEBUILDER_ASSETS="$bin_dir" "$go_bin" test -count=1 -json "${test_module_packages[@]}") >>"$2" || status=$?
	return "$status"
}

# count ACTION FILE: tests and subtests that ended with ACTION.
count() {
	grep -c "\"Action\":\"$1\",\"Package\":\"[^\"]*\",\"Test\":" "$2" || true
}

# test_names ACTION FILE: package and name of each test that ended with ACTION.
test_names() {
	sed -n "s/.*\"Action\":\"$1\",\"Package\":\"\([^\"]*\)\",\"Test\":\"\([^\"]*\)\".*/\1 \2/p" "$2" | sort -u
}

minutes() { # seconds
	awk -v s="$1" 'BEGIN { printf "%.1f", s / 60 }'
}

test_cmd() {
	local work=$1 lint
	lint=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
	bin_dir=$(cd "$2" && pwd)
	mkdir -p "$work"
	work=$(cd "$work" && pwd)
	local before=$work/before after=$work/after summary=$work/summary.md
	local started=$SECONDS

	# The linter must be the version Cluster API lints with.
	local core want_lint
	core=$(module_dir sigs.k8s.io/cluster-api)
	want_lint=$(sed -n 's/^[[:space:]]*version: \(v[0-9.]*\)$/\1/p' "$core/.github/workflows/pr-golangci-lint.yaml" | head -n 1)
	if ! "$lint" version 2>/dev/null | grep -q "version ${want_lint#v} "; then
		echo "$lint is not golangci-lint $want_lint, the version Cluster API $version lints with" >&2
		exit 1
	fi

	echo "== Cluster API $version as released: its tests of ${#packages[@]} package trees"
	source_tree "$before"
	local status_before=0
	run_tests "$before" "$work/before.json" || status_before=$?
	local before_seconds=$((SECONDS - started))

	echo "== Cluster API $version with the series: the same tests, then golangci-lint $want_lint"
	source_tree "$after" apply
	local status_after=0 lint_status=0
	local after_started=$SECONDS
	run_tests "$after" "$work/after.json" || status_after=$?
	local after_seconds=$((SECONDS - after_started))
	local lint_started=$SECONDS
	(cd "$after" && "$lint" run --config .golangci.yml "${lint_packages[@]}") >"$work/lint.txt" 2>&1 || lint_status=$?
	local lint_seconds=$((SECONDS - lint_started))

	test_names pass "$work/before.json" >"$work/before-passed.txt"
	test_names pass "$work/after.json" >"$work/after-passed.txt"
	local new_tests
	new_tests=$(comm -13 "$work/before-passed.txt" "$work/after-passed.txt")
	local gone_tests
	gone_tests=$(comm -23 "$work/before-passed.txt" "$work/after-passed.txt")
	{
		echo "# Cluster API $version with upstream/patches: its own tests and linter"
		echo
		echo "Packages: ${packages[*]}, and in Cluster API's test module ${test_module_packages[*]}; tests and subtests, counted from go test -json."
		echo
		echo "| tree | passed | failed | skipped | go test exit | minutes |"
		echo "| --- | --- | --- | --- | --- | --- |"
		printf '| released | %s | %s | %s | %s | %s |\n' "$(count pass "$work/before.json")" "$(count fail "$work/before.json")" \
			"$(count skip "$work/before.json")" "$status_before" "$(minutes "$before_seconds")"
		printf '| with the series | %s | %s | %s | %s | %s |\n' "$(count pass "$work/after.json")" "$(count fail "$work/after.json")" \
			"$(count skip "$work/after.json")" "$status_after" "$(minutes "$after_seconds")"
		echo
		echo "New tests, passed with the series and not run before:"
		echo
		if [[ -n $new_tests ]]; then sed 's/^/- /' <<<"$new_tests"; fi
		echo
		echo "Tests that passed before and not with the series:"
		echo
		if [[ -n $gone_tests ]]; then sed 's/^/- /' <<<"$gone_tests"; else echo "- none"; fi
		echo
		echo "golangci-lint $want_lint with Cluster API's .golangci.yml on ${lint_packages[*]}: exit $lint_status in ${lint_seconds}s"
		sed 's/^/    /' "$work/lint.txt"
	} >"$summary"
	cat "$summary"

	if ((status_before != 0)); then
		echo "Cluster API's own tests failed on the released tree: the environment is broken (see $work/before.json)" >&2
		exit 1
	fi
	if ((status_after != 0)) || [[ -z $new_tests ]] || [[ -n $gone_tests ]] || ((lint_status != 0)); then
		echo "the series does not pass: go test exit $status_after, lint exit $lint_status, new tests: ${new_tests:-none}," \
			"tests that passed before and not after: ${gone_tests:-none}" >&2
		exit 1
	fi
	echo "upstream test passed in $(((SECONDS - started) / 60))m$(((SECONDS - started) % 60))s"
}

build_cmd() {
	local work=$1 out=$2
	mkdir -p "$work" "$(dirname "$out")"
	work=$(cd "$work" && pwd)
	out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
	source_tree "$work/build" apply
	(cd "$work/build" && "$go_bin" build -o "$out" ./core)
	echo "built $out from Cluster API $version with ${#patches[@]} patches"
}

case "${1:-}:$#" in
test:4) test_cmd "$2" "$3" "$4" ;;
build:3) build_cmd "$2" "$3" ;;
*)
	echo "usage: $0 test WORK_DIR BIN_DIR LINT | build WORK_DIR OUT" >&2
	exit 2
	;;
esac
