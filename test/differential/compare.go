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

package differential

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
)

// absent stands for a field one side did not write.
const absent = "<absent>"

// Difference is one field that the two managers wrote differently.
type Difference struct {
	Path string
	// Baseline is what Cluster API wrote, Ours what we wrote.
	Baseline, Ours string
	// Reason is the allow-list's reason, for an allowed difference.
	Reason string
}

// Allowance is one entry of the allow-list: a difference we keep on
// purpose, and why.
type Allowance struct {
	// Path matches the field paths it covers.
	Path *regexp.Regexp
	// Holds, when set, narrows the allowance to the pairs of values it
	// accepts.
	Holds func(baseline, ours string) bool
	// OursOnlyCondition, when set, is a condition type only we write: its
	// fields and its place in the order of conditions are set aside.
	OursOnlyCondition string
	Reason            string
}

// Comparison is the outcome of comparing two snapshots.
type Comparison struct {
	// Unexplained differences fail the test.
	Unexplained []Difference
	// Allowed differences are covered by the allow-list.
	Allowed []Difference
	// Messages differ in wording only, which is never a failure.
	Messages []Difference
}

// Compare compares what Cluster API wrote with what we wrote.
func Compare(baseline, ours Snapshot, allow []Allowance) Comparison {
	baseline, ours = setAside(baseline, allow), setAside(ours, allow)
	paths := map[string]struct{}{}
	for p := range baseline {
		paths[p] = struct{}{}
	}
	for p := range ours {
		paths[p] = struct{}{}
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)

	var c Comparison
	for _, p := range sorted {
		b, okB := baseline[p]
		o, okO := ours[p]
		if !okB {
			b = absent
		}
		if !okO {
			o = absent
		}
		if b == o {
			continue
		}
		d := Difference{Path: p, Baseline: b, Ours: o}
		if reason, ok := allowed(p, b, o, allow); ok {
			d.Reason = reason
			c.Allowed = append(c.Allowed, d)
			continue
		}
		if strings.HasSuffix(p, messageSuffix) && okB && okO {
			c.Messages = append(c.Messages, d)
			continue
		}
		c.Unexplained = append(c.Unexplained, d)
	}
	return c
}

func allowed(path, baseline, ours string, allow []Allowance) (string, bool) {
	for _, a := range allow {
		if a.Path != nil && a.Path.MatchString(path) && (a.Holds == nil || a.Holds(baseline, ours)) {
			return a.Reason, true
		}
	}
	return "", false
}

// Superset holds when ours, a JSON list of strings, has every entry of
// baseline's.
func Superset(baseline, ours string) bool {
	var b, o []string
	if json.Unmarshal([]byte(baseline), &b) != nil || json.Unmarshal([]byte(ours), &o) != nil {
		return false
	}
	have := map[string]bool{}
	for _, entry := range o {
		have[entry] = true
	}
	for _, entry := range b {
		if !have[entry] {
			return false
		}
	}
	return true
}

// SameEntries holds when baseline and ours are JSON lists of the same
// entries, in any order.
func SameEntries(baseline, ours string) bool {
	var b, o []json.RawMessage
	if json.Unmarshal([]byte(baseline), &b) != nil || json.Unmarshal([]byte(ours), &o) != nil || len(b) != len(o) {
		return false
	}
	count := map[string]int{}
	for _, entry := range b {
		count[compact(entry)]++
	}
	for _, entry := range o {
		key := compact(entry)
		if count[key] == 0 {
			return false
		}
		count[key]--
	}
	return true
}

// compact is a JSON value without insignificant white space, so that equal
// values compare equal as strings.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// setAside drops the conditions only we write from a copy of s: their
// fields, and their place in the order of conditions.
func setAside(s Snapshot, allow []Allowance) Snapshot {
	out := make(Snapshot, len(s))
	for p, v := range s {
		out[p] = v
	}
	for _, a := range allow {
		if a.OursOnlyCondition == "" {
			continue
		}
		marker := ".conditions[" + a.OursOnlyCondition + "]"
		for p, v := range out {
			switch {
			case strings.Contains(p, marker):
				delete(out, p)
			case strings.HasSuffix(p, ".conditions (order)"):
				var kept []string
				for _, t := range strings.Split(v, ",") {
					if t != a.OursOnlyCondition {
						kept = append(kept, t)
					}
				}
				out[p] = strings.Join(kept, ",")
			}
		}
	}
	return out
}
