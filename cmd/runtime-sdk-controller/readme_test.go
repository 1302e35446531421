package main

import (
	"bytes"
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
	// One row stands for controller-runtime's logging flags.
	onlyDocumented, onlyListed := readmecheck.Differences(documented, listed, func(f string) bool { return strings.HasPrefix(f, "zap-") })
	if len(onlyDocumented) > 0 || len(onlyListed) > 0 {
		t.Errorf("the README's flag table has %v, which -h does not list; -h lists %v, which the table lacks", onlyDocumented, onlyListed)
	}
}
