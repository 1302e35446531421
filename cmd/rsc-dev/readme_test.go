package main

import (
	"bytes"
	"testing"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/readmecheck"
)

func TestREADME_FlagTableIsWhatHelpLists(t *testing.T) {
	cells, err := readmecheck.Table(readmecheck.Path(), "## Using it", "rsc-dev flag")
	if err != nil {
		t.Fatal(err)
	}
	documented := readmecheck.Flags(cells)
	var usage, stdout bytes.Buffer
	if code := run([]string{"-h"}, &stdout, &usage); code != 0 {
		t.Fatalf("-h exited %d", code)
	}
	listed := readmecheck.UsageFlags(usage.String())
	if len(documented) == 0 || len(listed) == 0 {
		t.Fatalf("README table %d flags, -h %d", len(documented), len(listed))
	}
	onlyDocumented, onlyListed := readmecheck.Differences(documented, listed, nil)
	if len(onlyDocumented) > 0 || len(onlyListed) > 0 {
		t.Errorf("the README's rsc-dev table has %v, which -h does not list; -h lists %v, which the table lacks", onlyDocumented, onlyListed)
	}
}
