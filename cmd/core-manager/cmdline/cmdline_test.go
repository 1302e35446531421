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

package cmdline

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
)

// flagLine is one flag in pflag's usage: its name, its type (none for a
// bool) and its default, when it has one.
var flagLine = regexp.MustCompile(`^\s+(?:-\w, )?--([a-z0-9-]+)(?: (\S+))?\s{2,}.*?(?:\(default (.*)\))?$`)

type flagSpec struct{ kind, def string }

func parseUsage(usage string) map[string]flagSpec {
	flags := map[string]flagSpec{}
	for _, line := range strings.Split(usage, "\n") {
		if m := flagLine.FindStringSubmatch(line); m != nil {
			flags[m[1]] = flagSpec{kind: m[2], def: m[3]}
		}
	}
	return flags
}

// typeNamed tells a type in pflag's usage from a word of the flag's own
// help text, which pflag shows instead when the text back-quotes one.
func typeNamed(kind string) bool { return kind == "" || (kind[0] >= 'a' && kind[0] <= 'z') }

func TestNewFlagSet_TakesEveryFlagOfClusterAPIsCoreManagerWithItsTypeAndDefault(t *testing.T) {
	binDir := toolbin.Require(t, func(binDir string) error {
		if _, err := os.Stat(filepath.Join(binDir, "capi-baseline")); err != nil {
			return fmt.Errorf("%w: build it with `make capi-baseline`", err)
		}
		return nil
	})
	out, _ := exec.Command(filepath.Join(binDir, "capi-baseline"), "--help").CombinedOutput()
	theirs := parseUsage(string(out))
	if len(theirs) < 50 {
		t.Fatalf("read %d flags from Cluster API's --help:\n%s", len(theirs), out)
	}
	ours := parseUsage(NewFlagSet("core-manager", &Options{}).FlagUsages())
	for name, want := range theirs {
		got, ok := ours[name]
		switch {
		case !ok:
			t.Errorf("--%s of Cluster API's manager is missing", name)
		case got.def != want.def || (typeNamed(got.kind) && typeNamed(want.kind) && got.kind != want.kind):
			t.Errorf("--%s: type %q default %q, Cluster API's %q and %q", name, got.kind, got.def, want.kind, want.def)
		}
	}
	for name := range ours {
		if _, ok := theirs[name]; !ok {
			t.Errorf("--%s is ours only: a Deployment for Cluster API's manager never sets it", name)
		}
	}
}

func TestParse_AFlagClusterAPIsManagerDoesNotTakeStopsItByName(t *testing.T) {
	if _, err := Parse("core-manager", []string{"--leader-elect", "--metrics-bind-address=:8080"}); err == nil || !strings.Contains(err.Error(), "metrics-bind-address") {
		t.Errorf("an unknown flag: %v, want an error naming --metrics-bind-address", err)
	}
	o, err := Parse("core-manager", []string{"--leader-elect", "--diagnostics-address=:8443", "--insecure-diagnostics=false",
		"--feature-gates=MachinePool=true,ClusterTopology=true,RuntimeSDK=true", "--clusterclass-concurrency=4"})
	if err != nil {
		t.Fatalf("a clusterctl Deployment's arguments: %v", err)
	}
	if !o.LeaderElect || *o.Concurrency["clusterclass"] != 4 {
		t.Errorf("parsed %+v", o)
	}
	if _, err := Parse("core-manager", []string{"--remote-conditions-grace-period=30s"}); err == nil {
		t.Error("a conditions grace period below the connection grace period was accepted")
	}
}
