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
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
)

// Counts are one user's requests.
type Counts struct {
	// Requests are all requests: each completed one, and each watch once,
	// when it starts.
	Requests int `json:"requests"`
	// Writes are creates, updates, patches and deletes.
	Writes int `json:"writes"`
	// ClusterClassStatusWrites are updates and patches of a ClusterClass's
	// status.
	ClusterClassStatusWrites int `json:"clusterClassStatusWrites"`
}

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	c.Requests += o.Requests
	c.Writes += o.Writes
	c.ClusterClassStatusWrites += o.ClusterClassStatusWrites
}

// Log is an audit log being read from a mark on.
type Log struct {
	path string
}

// Open names the audit log at path, which kube-apiserver writes with
// --audit-log-format=json.
func Open(path string) *Log { return &Log{path: path} }

// Mark is a position in the log: counts since a mark leave out what came
// before.
type Mark int64

// Mark returns the end of the last complete line of the log as it is
// now; a log not written yet is at its start. kube-apiserver may be
// halfway through writing a line: that line comes after the mark, so
// that counting from the mark starts at a line's beginning.
func (l *Log) Mark() (Mark, error) {
	f, err := os.Open(l.path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	// Look back from the end for the last newline, a block at a time.
	const block = 64 << 10
	buf := make([]byte, block)
	for end := info.Size(); end > 0; {
		start := max(end-block, 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return Mark(start + int64(i) + 1), nil
		}
		end = start
	}
	return 0, nil
}

// ErrRotated is what counting returns when the log is shorter than its
// mark, or, for a Tally, gone or another file than the one it counted:
// kube-apiserver rotates its audit log at --audit-log-maxsize (100 MB
// unless set), and an offset into the old file lands inside a line of
// the new one. Since, which keeps no file, can tell only the first.
var ErrRotated = errors.New("the audit log was rotated or truncated after the mark")

// Since counts, by user name, the requests recorded after mark. A line
// still being written is left for the next count.
func (l *Log) Since(mark Mark) (map[string]Counts, error) {
	f, err := os.Open(l.path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]Counts{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := seekToMark(f, mark); err != nil {
		return nil, err
	}
	return Count(f)
}

// seekToMark moves f to mark, and refuses a log shorter than the mark.
func seekToMark(f *os.File, mark Mark) (os.FileInfo, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() < int64(mark) {
		return nil, fmt.Errorf("%w: %s holds %d bytes, the mark is at %d", ErrRotated, f.Name(), info.Size(), mark)
	}
	_, err = f.Seek(int64(mark), io.SeekStart)
	return info, err
}

// Tally counts a growing log as it goes: each Total reads only what was
// written since the last, so that counting stays cheap however long the
// log gets.
type Tally struct {
	log    *Log
	mark   Mark
	counts map[string]Counts
	// file is the log file counted so far, to tell it from a rotated one.
	file os.FileInfo
}

// Tally starts counting at mark, in the log file as it is now.
func (l *Log) Tally(mark Mark) *Tally {
	file, _ := os.Stat(l.path) // a log not written yet is found later
	return &Tally{log: l, mark: mark, counts: map[string]Counts{}, file: file}
}

// Total returns, by user name, the requests recorded since the Tally's
// mark, up to the last complete line.
func (t *Tally) Total() (map[string]Counts, error) {
	f, err := os.Open(t.log.path)
	if errors.Is(err, os.ErrNotExist) {
		if t.file != nil {
			// Between a rotation's rename and the new file.
			return nil, fmt.Errorf("%w: %s is gone", ErrRotated, t.log.path)
		}
		return maps.Clone(t.counts), nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := seekToMark(f, t.mark)
	if err != nil {
		return nil, err
	}
	if t.file != nil && !os.SameFile(t.file, info) {
		return nil, fmt.Errorf("%w: %s is another file than at the mark", ErrRotated, t.log.path)
	}
	t.file = info
	more, consumed, err := count(f)
	if err != nil {
		return nil, err
	}
	t.mark += Mark(consumed)
	for user, c := range more {
		total := t.counts[user]
		total.Add(c)
		t.counts[user] = total
	}
	return maps.Clone(t.counts), nil
}

// event holds the fields of an audit.k8s.io/v1 Event that are counted.
type event struct {
	Stage string `json:"stage"`
	Verb  string `json:"verb"`
	User  struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		APIGroup    string `json:"apiGroup"`
	} `json:"objectRef"`
}

// Count reads audit events, one JSON object per line, and counts them by
// user. An incomplete last line is not counted.
func Count(r io.Reader) (map[string]Counts, error) {
	counts, _, err := count(r)
	return counts, err
}

// count is Count that also says how many bytes the counted lines took.
func count(r io.Reader) (map[string]Counts, int64, error) {
	counts := map[string]Counts{}
	reader := bufio.NewReaderSize(r, 64<<10)
	var consumed int64
	for line := 1; ; line++ {
		data, err := reader.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			// A line without its newline is still being written.
			return counts, consumed, nil
		}
		if err != nil {
			return nil, 0, err
		}
		consumed += int64(len(data))
		data = bytes.TrimSpace(data)
		if len(data) == 0 {
			continue
		}
		var e event
		if err := json.Unmarshal(data, &e); err != nil {
			return nil, 0, fmt.Errorf("audit log line %d: %w", line, err)
		}
		c := counts[e.User.Username]
		c.Add(classify(e))
		counts[e.User.Username] = c
	}
}

// classify is what one event adds to its user's counts.
func classify(e event) Counts {
	// A watch is counted when it starts; every other request when it
	// completes. Panics are requests too.
	counted := e.Stage == "Panic" ||
		(e.Verb == "watch" && e.Stage == "ResponseStarted") ||
		(e.Verb != "watch" && e.Stage == "ResponseComplete")
	if !counted {
		return Counts{}
	}
	c := Counts{Requests: 1}
	switch e.Verb {
	case "create", "update", "patch", "delete", "deletecollection":
		c.Writes = 1
		if (e.Verb == "update" || e.Verb == "patch") && e.ObjectRef != nil &&
			e.ObjectRef.APIGroup == "cluster.x-k8s.io" && e.ObjectRef.Resource == "clusterclasses" && e.ObjectRef.Subresource == "status" {
			c.ClusterClassStatusWrites = 1
		}
	}
	return c
}
