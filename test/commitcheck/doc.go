// Package commitcheck holds hack/check-commits.sh, the commit message check
// .ci/run runs before make test, to its rule: its tests make throwaway
// repositories and check that it accepts good messages, refuses bad ones
// naming the commit and the problem, and fails on a clone that lacks the
// first commit it checks.
package commitcheck
