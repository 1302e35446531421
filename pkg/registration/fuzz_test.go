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

package registration

import (
	"strings"
	"testing"

	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
)

// The seeds of the fuzz target are files under testdata/fuzz/<target>/, so
// that `go test` replays them and `make fuzz` starts from them.

// FuzzHandlerName checks the parsing of full handler names against the
// joining that makes them. Joined from a discovered name (never empty, never
// dotted: Discovery refuses both) and an ExtensionConfig name, a full name
// parses back into that config, and status.handlers holding it, or the bare
// name, reads back as that handler. Any string at all parses without a
// panic; when it parses, the handler part is non-empty and dot-free and the
// two parts join back into the string; and a recorded name is read either
// as a handler of its own config or skipped.
func FuzzHandlerName(f *testing.F) {
	f.Fuzz(func(t *testing.T, handler, config string) {
		joined := FullHandlerName(handler, config)
		got, ok := ExtensionConfigOf(joined)
		valid := handler != "" && !strings.Contains(handler, ".") && config != ""
		switch {
		case valid:
			if !ok || got != config {
				t.Fatalf("%q joined from handler %q and config %q parses to (%q, %t)", joined, handler, config, got, ok)
			}
		case ok && got == config:
			// Why Discovery refuses dotted and empty names: the config
			// part would no longer be the config's name.
			t.Fatalf("%q joined from the invalid handler %q parses back to config %q", joined, handler, config)
		}

		for _, name := range []string{handler, config, joined} {
			got, ok := ExtensionConfigOf(name)
			if !ok {
				h, c, dotted := strings.Cut(name, ".")
				if dotted && h != "" && c != "" {
					t.Fatalf("%q is <handler>.<config> but does not parse", name)
				}
			} else if h, found := strings.CutSuffix(name, "."+got); !found || h == "" || strings.Contains(h, ".") || got == "" {
				t.Fatalf("%q parses to config %q, leaving handler %q", name, got, h)
			}

			ext := &runtimev1.ExtensionConfig{}
			ext.Name = config
			ext.Status.Handlers = []runtimev1.ExtensionHandler{{Name: name}}
			recorded, skipped := RecordedHandlers(ext)
			if len(recorded)+len(skipped) != 1 {
				t.Fatalf("%q in %q: %d read, %d skipped", name, config, len(recorded), len(skipped))
			}
			if len(recorded) == 1 {
				r := recorded[0]
				if r.HandlerName == "" || strings.Contains(r.HandlerName, ".") || r.FullName != FullHandlerName(r.HandlerName, config) {
					t.Fatalf("%q in %q read as handler %q, full name %q", name, config, r.HandlerName, r.FullName)
				}
			}
		}
		if valid {
			for _, name := range []string{handler, joined} {
				ext := &runtimev1.ExtensionConfig{}
				ext.Name = config
				ext.Status.Handlers = []runtimev1.ExtensionHandler{{Name: name}}
				if recorded, skipped := RecordedHandlers(ext); len(recorded) != 1 || recorded[0].FullName != joined {
					t.Fatalf("%q in %q read as %+v, skipped %v; want %q", name, config, recorded, skipped, joined)
				}
			}
		}
	})
}
