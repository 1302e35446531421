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
