package main

import (
	"bytes"
	"testing"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/readmetest"
)

func TestREADME_FlagTableIsWhatHelpLists(t *testing.T) {
	var usage, stdout bytes.Buffer
	if code := run([]string{"-h"}, &stdout, &usage); code != 0 {
		t.Fatalf("-h exited %d", code)
	}
	readmetest.CheckFlagTable(t, readmetest.Doc("docs/development.md"), "## make run", "rsc-dev flag", usage.String(), nil)
}
