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

package client

import (
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/readmetest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// RELIABILITY.md's figures that come from this package's unexported
// constants must be those constants: changing either side fails here.
func TestRELIABILITY_FiguresAreTheClientsConstants(t *testing.T) {
	doc := readmetest.DocText(t, "RELIABILITY.md")
	for _, c := range []struct {
		name, pattern string
		// want is the constant in the figure's unit.
		want int64
	}{
		{"unused transport dropped, what changed", "drops the transport of a CA bundle that no call has used for (\\d+) minutes", int64(transportTTL / time.Minute)},
		{"unused transport dropped, in memory", "one connection pool per distinct bundle, dropped once no call used it for (\\d+) minutes", int64(transportTTL / time.Minute)},
		{"error body read", "another answer's up to (\\d+) KiB, for its error message", errorBodyBytes >> 10},
		{"snippet in a condition", "reaches a condition as at most (\\d+) bytes", maxSnippetBytes},
		{"snippet in the log", "quote at most (\\d+) printable bytes of what it said", maxSnippetBytes},
		{"snippet an extension can place", "Put at most (\\d+) printable bytes of its own words into a condition", maxSnippetBytes},
		{"200 answer bound", "A 200 answer's body is read up to (\\d+) MiB", userfacing.DefaultMaxResponseBytes >> 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, m := range readmetest.Figures(t, doc, c.pattern) {
				if got := readmetest.FigureAs(t, m[0], int64(0)); got != c.want {
					t.Errorf("RELIABILITY.md says %s for %q where the code has %d", m[0], c.name, c.want)
				}
			}
		})
	}
	// The constants are whole units, so the figures above are exact.
	if transportTTL%time.Minute != 0 || errorBodyBytes%(1<<10) != 0 || userfacing.DefaultMaxResponseBytes%(1<<20) != 0 {
		t.Errorf("transportTTL %v, errorBodyBytes %d, userfacing.DefaultMaxResponseBytes %d: not whole minutes, KiB and MiB", transportTTL, errorBodyBytes, userfacing.DefaultMaxResponseBytes)
	}
}
