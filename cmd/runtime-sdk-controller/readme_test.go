package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/readmetest"
)

func TestREADME_FlagTableIsWhatHelpLists(t *testing.T) {
	var usage bytes.Buffer
	if _, err := parseFlags([]string{"-h"}, &usage); err == nil {
		t.Fatal("-h parsed as a command line")
	}
	// One row stands for controller-runtime's logging flags.
	zap := func(f string) bool { return strings.HasPrefix(f, "zap-") }
	readmetest.CheckFlagTable(t, readmetest.Doc("docs/read-only-tools.md"), "To observe an existing cluster", "flag", usage.String(), zap)
}
