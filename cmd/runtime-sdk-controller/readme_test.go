package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/readmecheck"
)

func TestREADME_FlagTableIsWhatHelpLists(t *testing.T) {
	cells, err := readmecheck.Table(readmecheck.Path(), "To run against an existing cluster", "flag")
	if err != nil {
		t.Fatal(err)
	}
	documented := readmecheck.Flags(cells)
	var usage bytes.Buffer
	if _, err := parseFlags([]string{"-h"}, &usage); err == nil {
		t.Fatal("-h parsed as a command line")
	}
	listed := readmecheck.UsageFlags(usage.String())
	if len(documented) == 0 || len(listed) == 0 {
		t.Fatalf("README table %d flags, -h %d", len(documented), len(listed))
	}
	for _, f := range documented {
		if !slices.Contains(listed, f) {
			t.Errorf("the README's flag table has --%s, which -h does not list", f)
		}
	}
	for _, f := range listed {
		// One row stands for controller-runtime's logging flags.
		if !slices.Contains(documented, f) && !strings.HasPrefix(f, "zap-") {
			t.Errorf("-h lists --%s, which the README's flag table lacks", f)
		}
	}
}
