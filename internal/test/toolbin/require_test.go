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

package toolbin

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// skipShortChild makes TestSkipShort_SkipsOnlyUnderShort the test that
// calls SkipShort, in the child the test runs.
const skipShortChild = "TOOLBIN_SKIP_SHORT_CHILD"

// go test -short skips a test that calls SkipShort, saying that make test
// runs it; without -short the test runs on.
func TestSkipShort_SkipsOnlyUnderShort(t *testing.T) {
	if os.Getenv(skipShortChild) == "1" {
		SkipShort(t)
		t.Log("ran past SkipShort")
		return
	}
	for _, tt := range []struct {
		short bool
		want  []string
	}{
		{short: true, want: []string{"--- SKIP", ShortSkip}},
		{short: false, want: []string{"--- PASS", "ran past SkipShort"}},
	} {
		args := []string{"-test.run=^TestSkipShort_SkipsOnlyUnderShort$", "-test.v"}
		if tt.short {
			args = append(args, "-test.short")
		}
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), skipShortChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("short=%t: %v\n%s", tt.short, err, out)
		}
		for _, want := range tt.want {
			if !strings.Contains(string(out), want) {
				t.Errorf("short=%t: the output lacks %q:\n%s", tt.short, want, out)
			}
		}
	}
}
