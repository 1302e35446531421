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

package objstatus

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncate_FitsTheLimitOnARuneBoundaryAndSaysSo(t *testing.T) {
	if got := truncate("short", 10); got != "short" {
		t.Errorf("a message within the limit changed: %q", got)
	}
	long := strings.Repeat("é", 40000) // two bytes each
	got := truncate(long, maxMessageBytes)
	if len(got) > maxMessageBytes || !utf8.ValidString(got) || !strings.HasSuffix(got, truncationMark) {
		t.Errorf("truncated to %d bytes, valid UTF-8 %t, marked %t", len(got), utf8.ValidString(got), strings.HasSuffix(got, truncationMark))
	}
	if exact := strings.Repeat("a", maxMessageBytes); truncate(exact, maxMessageBytes) != exact {
		t.Error("a message of exactly the limit was cut")
	}
}
