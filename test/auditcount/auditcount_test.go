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

package auditcount

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func line(stage, verb, user, group, resource, subresource string) string {
	ref := ""
	if resource != "" {
		ref = `,"objectRef":{"resource":"` + resource + `","subresource":"` + subresource + `","apiGroup":"` + group + `"}`
	}
	return `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"` + stage + `","verb":"` + verb +
		`","user":{"username":"` + user + `"}` + ref + "}\n"
}

func TestCount_CountsEachRequestOnceByUser(t *testing.T) {
	log := line("ResponseComplete", "get", "controller", "cluster.x-k8s.io", "clusterclasses", "") +
		line("ResponseComplete", "patch", "controller", "cluster.x-k8s.io", "clusterclasses", "status") +
		line("ResponseComplete", "update", "controller", "cluster.x-k8s.io", "clusterclasses", "status") +
		// Another group's clusterclasses are not Cluster API's.
		line("ResponseComplete", "patch", "controller", "example.com", "clusterclasses", "status") +
		line("ResponseComplete", "patch", "controller", "cluster.x-k8s.io", "clusterclasses", "") +
		// A watch counts once, when it starts.
		line("ResponseStarted", "watch", "controller", "", "namespaces", "") +
		line("ResponseComplete", "watch", "controller", "", "namespaces", "") +
		line("ResponseComplete", "create", "driver", "runtime.cluster.x-k8s.io", "extensionconfigs", "") +
		line("Panic", "list", "driver", "", "secrets", "")
	counts, err := Count(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Counts{
		"controller": {Requests: 6, Writes: 4, ClusterClassStatusWrites: 2},
		"driver":     {Requests: 2, Writes: 1},
	}
	if len(counts) != len(want) {
		t.Fatalf("counts %+v, want %+v", counts, want)
	}
	for user, w := range want {
		if counts[user] != w {
			t.Errorf("%s: %+v, want %+v", user, counts[user], w)
		}
	}
}

func TestLog_SinceCountsOnlyCompleteLinesAfterTheMark(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l := Open(path)
	mark, err := l.Mark()
	if err != nil || mark != 0 {
		t.Fatalf("mark of a log not written yet: %d, %v", mark, err)
	}
	before := line("ResponseComplete", "get", "driver", "", "namespaces", "")
	if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	if mark, err = l.Mark(); err != nil {
		t.Fatal(err)
	}
	after := line("ResponseComplete", "delete", "driver", "", "namespaces", "")
	partial := strings.TrimSuffix(line("ResponseComplete", "get", "driver", "", "namespaces", ""), "\n")
	if err := os.WriteFile(path, []byte(before+after+partial), 0o600); err != nil {
		t.Fatal(err)
	}
	counts, err := l.Since(mark)
	if err != nil {
		t.Fatal(err)
	}
	if got := counts["driver"]; got != (Counts{Requests: 1, Writes: 1}) {
		t.Errorf("since the mark: %+v, want the one delete", got)
	}
}

func TestCount_NamesTheLineThatIsNotJSON(t *testing.T) {
	_, err := Count(strings.NewReader(line("ResponseComplete", "get", "a", "", "pods", "") + "not json\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("error %v, want one naming line 2", err)
	}
}

func TestTally_CountsEachLineOnceAsTheLogGrows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l := Open(path)
	before := line("ResponseComplete", "get", "driver", "", "namespaces", "")
	if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	mark, err := l.Mark()
	if err != nil {
		t.Fatal(err)
	}
	tally := l.Tally(mark)
	write := line("ResponseComplete", "delete", "driver", "", "namespaces", "")
	partial := line("ResponseComplete", "create", "driver", "", "namespaces", "")
	cut := len(partial) / 2
	for _, step := range []struct {
		appended string
		want     Counts
	}{
		{appended: "", want: Counts{}},
		// The second half of a line is counted once it is whole.
		{appended: write + partial[:cut], want: Counts{Requests: 1, Writes: 1}},
		{appended: partial[cut:], want: Counts{Requests: 2, Writes: 2}},
		{appended: write, want: Counts{Requests: 3, Writes: 3}},
	} {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(step.appended); err != nil {
			t.Fatal(err)
		}
		f.Close()
		counts, err := tally.Total()
		if err != nil {
			t.Fatal(err)
		}
		if got := counts["driver"]; got != step.want {
			t.Errorf("after appending %d bytes: %+v, want %+v", len(step.appended), got, step.want)
		}
	}
}

// A run at N = 200 lost its first measurement to this: kube-apiserver
// rotated the log at 100 MB, and the count went on at the old offset in
// the new file, inside a line.
func TestTally_RefusesARotatedOrTruncatedLog(t *testing.T) {
	record := line("ResponseComplete", "delete", "driver", "", "namespaces", "")
	for _, tt := range []struct {
		name string
		// replace makes the log at path another file, as a rotation does,
		// or cuts it.
		replace func(t *testing.T, path string)
	}{
		{"rotated, the new log longer than the mark", func(t *testing.T, path string) {
			if err := os.Rename(path, path+".1"); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(strings.Repeat(record, 4)), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"rotated, the new log shorter than the mark", func(t *testing.T, path string) {
			if err := os.Rename(path, path+".1"); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"renamed, the new log not written yet", func(t *testing.T, path string) {
			if err := os.Rename(path, path+".1"); err != nil {
				t.Fatal(err)
			}
		}},
		{"truncated", func(t *testing.T, path string) {
			if err := os.Truncate(path, 0); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.log")
			if err := os.WriteFile(path, []byte(record+record), 0o600); err != nil {
				t.Fatal(err)
			}
			l := Open(path)
			mark, err := l.Mark()
			if err != nil {
				t.Fatal(err)
			}
			tally := l.Tally(mark)
			if _, err := tally.Total(); err != nil {
				t.Fatal(err)
			}
			tt.replace(t, path)
			if counts, err := tally.Total(); !errors.Is(err, ErrRotated) {
				t.Errorf("Total after the log was %s: %v, %v; want ErrRotated", tt.name, counts, err)
			}
		})
	}
}

func TestLog_SinceRefusesALogShorterThanTheMark(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, []byte(line("ResponseComplete", "get", "driver", "", "namespaces", "")), 0o600); err != nil {
		t.Fatal(err)
	}
	l := Open(path)
	mark, err := l.Mark()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Since(mark); !errors.Is(err, ErrRotated) {
		t.Errorf("Since after a truncation: %v, want ErrRotated", err)
	}
}

func TestLog_MarkLeavesALineBeingWrittenAfterIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l := Open(path)
	whole := line("ResponseComplete", "get", "driver", "", "namespaces", "")
	next := line("ResponseComplete", "delete", "driver", "", "namespaces", "")
	half := len(next) / 2
	if err := os.WriteFile(path, []byte(whole+next[:half]), 0o600); err != nil {
		t.Fatal(err)
	}
	mark, err := l.Mark()
	if err != nil {
		t.Fatal(err)
	}
	if mark != Mark(len(whole)) {
		t.Fatalf("mark %d in a log with a line half written, want the end of the whole line, %d", mark, len(whole))
	}
	tally := l.Tally(mark)
	if err := os.WriteFile(path, []byte(whole+next), 0o600); err != nil {
		t.Fatal(err)
	}
	counts, err := tally.Total()
	if err != nil {
		t.Fatalf("counting from the mark once the line is whole: %v", err)
	}
	if got := counts["driver"]; got != (Counts{Requests: 1, Writes: 1}) {
		t.Errorf("counts %+v, want the delete written across the mark", got)
	}
}
