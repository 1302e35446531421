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

package logcap

import (
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
)

func TestCap_DropsLinesAboveTheCapAtAnyDepth(t *testing.T) {
	var lines []string
	base := funcr.New(func(prefix, args string) { lines = append(lines, prefix+" "+args) }, funcr.Options{Verbosity: 10})
	logger := Cap(base, MaxVerbosity).WithName("child").WithValues("k", "v")

	logger.V(4).Info("decision")
	logger.V(6).Info("request line")
	logger.V(7).Info("headers")
	logger.V(8).Info("body with secrets")
	logger.Error(nil, "errors always pass")

	if len(lines) != 3 {
		t.Fatalf("got %d lines, want 3: %q", len(lines), lines)
	}
	if logger.V(8).Enabled() {
		t.Error("V(8) reports enabled: client-go would build body dumps")
	}
	if !logger.V(MaxVerbosity).Enabled() {
		t.Error("V(MaxVerbosity) should stay enabled")
	}
	// The context round trip keeps the cap.
	if logr.FromContextOrDiscard(logr.NewContext(t.Context(), logger)).V(8).Enabled() {
		t.Error("a logger taken back from a context lost the cap")
	}
}
