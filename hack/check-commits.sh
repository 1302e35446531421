#!/usr/bin/env bash
# Checks the messages of the commits made since the rule was adopted
# (make check-commits, and .ci/run before make test), as Cluster API's
# commits read:
#   - a subject of at most 72 characters, starting with a capital letter
#     and not ending with a period;
#   - in the imperative: its first word (after a "Restructure: " prefix)
#     does not end in "ed", "ing" or "s", but for the few verbs in ALLOWED
#     that do ("Address", "Embed", "Bring");
#   - a blank line, then a body that says why.
# Merge commits are not checked: git writes their subjects.
#
# Usage: check-commits.sh [REVISION]
#   REVISION (default HEAD) and every commit it reaches back to FIRST_CHECKED
#   are checked. CHECK_COMMITS_FIRST overrides FIRST_CHECKED (the tests use
#   it on a repository of their own).
#
# A clone that lacks FIRST_CHECKED (a shallow one, as CI systems make) fails
# and says so, rather than checking fewer commits than it should.
set -o errexit -o nounset -o pipefail
# Characters, not bytes, where the system has a UTF-8 locale.
export LC_ALL=C.UTF-8 2>/dev/null || true

# The first commit made under the rule: "Reserve free ports across
# processes, not only within one". Commits before it predate the rule.
FIRST_CHECKED=c57c7051ea49880828cde3faa850bb57ecdea75f
first=${CHECK_COMMITS_FIRST:-$FIRST_CHECKED}
revision=${1:-HEAD}
MAX_SUBJECT=72
# Verbs in the imperative that end like a past tense, a gerund or a third
# person.
ALLOWED=" address access bring bypass compress dismiss embed express feed focus need pass process proceed seed speed suppress "

if ! git cat-file -e "$first^{commit}" 2>/dev/null; then
	if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
		echo "check-commits: this clone is shallow and lacks $first, the first commit checked: fetch the history (git fetch --unshallow) and run again" >&2
	else
		echo "check-commits: $first, the first commit checked, is not in this repository" >&2
	fi
	exit 2
fi
if ! git merge-base --is-ancestor "$first" "$revision"; then
	echo "check-commits: $first, the first commit checked, is not an ancestor of $revision" >&2
	exit 2
fi

# problems MESSAGE prints what is wrong with the commit message MESSAGE,
# one line each.
problems() {
	local message=$1 subject second body word
	subject=${message%%$'\n'*}
	if [ "${#subject}" -gt "$MAX_SUBJECT" ]; then
		echo "the subject has ${#subject} characters, over $MAX_SUBJECT"
	fi
	case $subject in
	[[:upper:]]*) ;;
	*) echo "the subject does not start with a capital letter" ;;
	esac
	case $subject in
	*.) echo "the subject ends with a period" ;;
	esac
	word=${subject#Restructure: }
	word=${word%% *}
	word=$(printf '%s' "$word" | tr '[:upper:]' '[:lower:]')
	case $word in
	*ed | *ing | *s)
		case $ALLOWED in
		*" $word "*) ;;
		*) echo "the subject starts with \"$word\": use the imperative (Add, not Added, Adding or Adds)" ;;
		esac
		;;
	esac
	if [ "$message" = "$subject" ]; then
		echo "there is no body: add a blank line and say why"
		return
	fi
	second=${message#*$'\n'}
	if [ -n "${second%%$'\n'*}" ]; then
		echo "the second line is not blank"
	fi
	body=$(printf '%s\n' "$second" | grep -Evi '^(signed-off-by|co-authored-by): ' | tr -d '[:space:]' || true)
	if [ -z "$body" ]; then
		echo "there is no body: add a blank line and say why"
	fi
}

checked=0
failed=0
for commit in $(git rev-list --no-merges "$revision" --not "$first^@"); do
	checked=$((checked + 1))
	message=$(git log -1 --format=%B "$commit")
	found=$(problems "$message")
	if [ -n "$found" ]; then
		failed=$((failed + 1))
		echo "$(git rev-parse --short "$commit") ${message%%$'\n'*}:" >&2
		printf '%s\n' "$found" | sed 's/^/  /' >&2
	fi
done
if [ "$failed" -gt 0 ]; then
	echo "check-commits: $failed of $checked commits since ${first:0:12} break the commit message rule (hack/check-commits.sh); git rebase -i lets you reword them" >&2
	exit 1
fi
echo "check-commits: $checked commits since ${first:0:12}, every message a subject of at most $MAX_SUBJECT characters in the imperative, a blank line and a body"
