package main

import (
	"bytes"
	"testing"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/readmecheck"
)

func TestREADME_FlagTableIsWhatHelpLists(t *testing.T) {
	var usage, stdout bytes.Buffer
	if code := run([]string{"-h"}, &stdout, &usage); code != 0 {
		t.Fatalf("-h exited %d", code)
	}
	readmecheck.CheckFlagTable(t, "## Using it", "rsc-dev flag", usage.String(), nil)
}
