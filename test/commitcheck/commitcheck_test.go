/*
Copyright 2026 The runtime-sdk-controller Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package commitcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// script is the check, from this package's folder.
var script, _ = filepath.Abs(filepath.Join("..", "..", "hack", "check-commits.sh"))

const goodBody = "\n\nThe body says why, with the numbers: 3 of 4."

func TestCheckCommits_AcceptsGoodMessagesAndNamesEachBadOne(t *testing.T) {
	tests := []struct {
		name    string
		message string
		// problem is what the check says, "" for a message it accepts.
		problem string
	}{
		{name: "imperative subject, blank line, body", message: "Add make test-unit for the inner loop" + goodBody},
		{name: "a Restructure: prefix", message: "Restructure: move the gate into one file" + goodBody},
		{name: "an imperative verb ending in s", message: "Address the review of the gate" + goodBody},
		{name: "72 characters", message: "Add " + strings.Repeat("x", 68) + goodBody},
		{name: "72 characters, not all of them ASCII", message: "Add " + strings.Repeat("é", 68) + goodBody},
		{name: "73 characters", message: "Add " + strings.Repeat("x", 69) + goodBody, problem: "the subject has 73 characters, over 72"},
		{name: "no body", message: "Add make test-unit", problem: "there is no body"},
		{name: "only a sign-off", message: "Add make test-unit\n\nSigned-off-by: A <a@example.com>", problem: "there is no body"},
		{name: "no blank line", message: "Add make test-unit\nThe body.", problem: "the second line is not blank"},
		{name: "past tense", message: "Added make test-unit" + goodBody, problem: `starts with "added": use the imperative`},
		{name: "gerund after the prefix", message: "Restructure: moving the gate" + goodBody, problem: `starts with "moving"`},
		{name: "third person", message: "Adds make test-unit" + goodBody, problem: `starts with "adds"`},
		{name: "lower case", message: "add make test-unit" + goodBody, problem: "does not start with a capital letter"},
		{name: "a final period", message: "Add make test-unit." + goodBody, problem: "ends with a period"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := newRepo(t)
			first := commit(t, repo, "Start the history"+goodBody)
			commit(t, repo, tt.message)
			out, err := check(t, repo, first)
			if tt.problem == "" {
				if err != nil {
					t.Fatalf("refused a good message: %v\n%s", err, out)
				}
				if !strings.Contains(out, "check-commits: 2 commits since") {
					t.Errorf("does not say it checked both commits:\n%s", out)
				}
				return
			}
			if exitCode(err) != 1 {
				t.Fatalf("exit %v, want 1, for %q:\n%s", err, tt.message, out)
			}
			subject, _, _ := strings.Cut(tt.message, "\n")
			for _, want := range []string{subject + ":", tt.problem, "1 of 2 commits"} {
				if !strings.Contains(out, want) {
					t.Errorf("the output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// Commits before the first checked one predate the rule, and a merge's
// subject is git's.
func TestCheckCommits_SkipsCommitsBeforeTheFirstAndMerges(t *testing.T) {
	repo := newRepo(t)
	commit(t, repo, "an old message, as they were")
	first := commit(t, repo, "Start checking here"+goodBody)
	git(t, repo, "checkout", "-q", "-b", "side")
	commit(t, repo, "Add a side change"+goodBody)
	git(t, repo, "checkout", "-q", "main")
	commit(t, repo, "Add a main change"+goodBody)
	git(t, repo, "merge", "-q", "--no-ff", "--no-edit", "side")
	out, err := check(t, repo, first)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "check-commits: 3 commits since") {
		t.Errorf("want the 3 commits from the first checked, merge aside:\n%s", out)
	}
}

// A shallow clone that stops after the first checked commit cannot be
// checked: the check fails and says why instead of passing on fewer
// commits.
func TestCheckCommits_FailsOnAShallowCloneWithoutTheFirstCommit(t *testing.T) {
	repo := newRepo(t)
	first := commit(t, repo, "Start checking here"+goodBody)
	for _, subject := range []string{"Add one", "Add two", "Add three"} {
		commit(t, repo, subject+goodBody)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, "", "clone", "-q", "--depth", "2", "file://"+repo, clone)
	out, err := check(t, clone, first)
	if exitCode(err) != 2 {
		t.Fatalf("exit %v, want 2:\n%s", err, out)
	}
	if !strings.Contains(out, "this clone is shallow and lacks "+first) {
		t.Errorf("does not say the clone is shallow:\n%s", out)
	}
}

// newRepo is an empty repository on branch main with an author set.
func newRepo(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "config", "user.name", "Test")
	git(t, repo, "config", "user.email", "test@example.com")
	git(t, repo, "config", "commit.gpgsign", "false")
	return repo
}

// commit commits a change with message, verbatim, and returns its hash.
func commit(t *testing.T, repo, message string) string {
	t.Helper()
	git(t, repo, "commit", "-q", "--allow-empty", "--cleanup=verbatim", "-m", message)
	return strings.TrimSpace(git(t, repo, "rev-parse", "HEAD"))
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// check runs the script in repo with first as the first commit checked.
func check(t *testing.T, repo, first string) (string, error) {
	t.Helper()
	cmd := exec.Command(script)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CHECK_COMMITS_FIRST="+first)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func exitCode(err error) int {
	if exit, ok := err.(*exec.ExitError); ok {
		return exit.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
