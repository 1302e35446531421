package main

import "testing"

func TestResultsPath_SitsBesideTheReport(t *testing.T) {
	for in, want := range map[string]string{"docs/scale/n10.md": "docs/scale/n10.json", "out/report": "out/report.json"} {
		if got := resultsPath(in); got != want {
			t.Errorf("resultsPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseManagers_RejectsAnUnknownName(t *testing.T) {
	got, err := parseManagers("drop-in, capi,cache")
	if err != nil || len(got) != 3 || !got[2].Cache {
		t.Errorf("parseManagers = %+v, %v", got, err)
	}
	if _, err := parseManagers("drop-in,kcp"); err == nil {
		t.Error("parseManagers accepted kcp")
	}
}
