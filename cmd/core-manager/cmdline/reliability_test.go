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

package cmdline

import (
	"fmt"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/readmetest"
)

// RELIABILITY.md's figures for the drop-in's own flags must be their
// defaults as registered: changing either side fails here.
func TestRELIABILITY_FiguresAreTheDropInsFlagDefaults(t *testing.T) {
	doc := readmetest.DocText(t, "RELIABILITY.md")
	fs := NewFlagSet("core-manager", &Options{})
	for _, c := range []struct {
		pattern string
		// flags are read in the order of the pattern's figures.
		flags []string
		// duration reads the figures as "10 s" rather than numbers.
		duration bool
	}{
		{"`--kube-api-qps` and `--kube-api-burst` \\(([\\d,]+) and ([\\d,]+) by default in both the drop-in core-manager and the read-only tools",
			[]string{"kube-api-qps", "kube-api-burst"}, false},
		{"`--leader-elect-renew-deadline` \\((\\d+ s)\\) makes the drop-in give up",
			[]string{"leader-elect-renew-deadline"}, true},
	} {
		for _, m := range readmetest.Figures(t, doc, c.pattern) {
			for i, name := range c.flags {
				f := fs.Lookup(name)
				if f == nil {
					t.Fatalf("no --%s", name)
				}
				var want any = int64(0)
				if c.duration {
					want = time.Duration(0)
				}
				got := fmt.Sprint(readmetest.FigureAs(t, m[i], want))
				if got != f.DefValue {
					t.Errorf("RELIABILITY.md says %s for --%s, whose default is %s", m[i], name, f.DefValue)
				}
			}
		}
	}
}
