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
	"context"
	"strings"
	"testing"
)

func TestDrill_UnknownDrillFailsBeforeStartingAnything(t *testing.T) {
	var stdout, stderr bytes.Buffer
	dir := t.TempDir()
	code := runDrill(context.Background(), []string{"--drills", "flap,chaos", "--local-dir", dir + "/cluster", "--out", dir + "/out"}, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit code %d, want 1; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), `unknown drill "chaos"`) {
		t.Errorf("stderr %q does not name the unknown drill", stderr.String())
	}
	if strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 {
		t.Errorf("stderr is not one line:\n%s", stderr.String())
	}
}
