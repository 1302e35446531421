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
