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

package main

import (
	"strconv"
	"testing"
	"time"

	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/backoff"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/logcap"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/readmetest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// RELIABILITY.md's figures that come from a constant of the drop-in must
// be that constant: changing either side fails here. Those of its flags
// are checked in cmdline.
func TestRELIABILITY_FiguresAreTheConstants(t *testing.T) {
	doc := readmetest.DocText(t, "RELIABILITY.md")
	for _, c := range []struct {
		name string
		// pattern finds the figures in the text, whose lines are joined
		// by one space; every occurrence is checked.
		pattern string
		want    []any
	}{
		{"response bound", "the response bound \\((\\d+ [KM]iB)\\)", []any{int64(userfacing.DefaultMaxResponseBytes)}},
		{"what an extension can send", "Send at most (\\d+ [KM]iB) in an HTTP 200 answer", []any{int64(userfacing.DefaultMaxResponseBytes)}},
		{"variables cache bound", "The DiscoverVariables cache is bounded \\(([\\d,]+) answers\\)", []any{int64(userfacing.DefaultVariablesCacheMaxEntries)}},
		{"variables cache bound, in memory", "DiscoverVariables answers \\(at most ([\\d,]+),", []any{int64(userfacing.DefaultVariablesCacheMaxEntries)}},
		{"discovery timeout", "\\(10 s by default\\), and (\\d+ s) for Discovery", []any{userfacing.DefaultCallTimeout}},
		{"variables cache bytes", "at\\s+most (\\d+ [KM]iB) of them as decoded in memory \\(`userfacing.DefaultVariablesCacheMaxBytes`",
			[]any{int64(userfacing.DefaultVariablesCacheMaxBytes)}},
		{"schema validation results", "schema validation results, only for the variables ClusterClasses hold, at most ([\\d,]+);",
			[]any{int64(userfacing.DefaultVariableVerdictsMaxEntries)}},
		{"handler timeout", "the handler's `timeoutSeconds` \\((\\d+ s) by default\\)",
			[]any{time.Duration(runtimehooksv1.DefaultHandlersTimeoutSeconds) * time.Second}},
		{"verbosity cap", "Verbosity is capped at (\\d+),",
			[]any{int64(logcap.MaxVerbosity)}},
		{"failure sharing backoff", "answers the same request for a backoff \\((\\d+ ms), doubling to (\\d+ s), cleared by a success",
			[]any{userfacing.DefaultFailureBackoff, userfacing.DefaultMaxFailureBackoff}},
		{"failure backoff an extension sees", "no sooner than its failure backoff \\(([\\d.]+ m?s) doubling to (\\d+ s)\\)",
			[]any{userfacing.DefaultFailureBackoff, userfacing.DefaultMaxFailureBackoff}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, got := range readmetest.Figures(t, doc, c.pattern) {
				if len(got) != len(c.want) {
					t.Fatalf("%q: %d figures, want %d", c.pattern, len(got), len(c.want))
				}
				for i, want := range c.want {
					if g := readmetest.FigureAs(t, got[i], want); g != want {
						t.Errorf("RELIABILITY.md says %s (%v) where the code has %v", got[i], g, want)
					}
				}
			}
		})
	}
}

// The retry backoff RELIABILITY.md derives its bounds from is our two
// controllers' (package backoff): per item, from a first delay doubling
// to a cap, with no overall rate limit on top.
func TestRELIABILITY_RetryBackoffIsOurControllers(t *testing.T) {
	got := readmetest.Figures(t, readmetest.DocText(t, "RELIABILITY.md"),
		"our two controllers retry a failed ClusterClass or ExtensionConfig after (\\d+ ms), doubling to (\\d+ s), and keep no overall rate limit")
	if len(got) != 1 {
		t.Fatalf("RELIABILITY.md states our controllers' backoff %d times, want once", len(got))
	}
	first, limit := readmetest.FigureAs(t, got[0][0], time.Duration(0)).(time.Duration), readmetest.FigureAs(t, got[0][1], time.Duration(0)).(time.Duration)
	if limit != userfacing.MaxRetryDelay {
		t.Errorf("RELIABILITY.md caps the backoff at %v, userfacing.MaxRetryDelay is %v", limit, userfacing.MaxRetryDelay)
	}
	limiter := backoff.RateLimiter()
	// An overall rate limit would delay the first retry of some of many
	// items beyond the first delay.
	for i := range 1000 {
		item := reconcile.Request{}
		item.Name = strconv.Itoa(i)
		if d := limiter.When(item); d != first {
			t.Fatalf("first retry of item %d after %v; RELIABILITY.md says %v and no overall limit", i, d, first)
		}
	}
	item := reconcile.Request{}
	item.Name = "0"
	want := first
	for range 40 {
		want = min(2*want, limit)
		if d := limiter.When(item); d != want {
			t.Fatalf("a retry after %v, want %v (RELIABILITY.md: %v doubling to %v)", d, want, first, limit)
		}
	}
	if want != limit {
		t.Fatalf("never reached %v", limit)
	}
}
