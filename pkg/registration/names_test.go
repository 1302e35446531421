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
	"reflect"
	"testing"

	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
)

func TestRecordedHandlers_ReadsFullAndShortNamesAndSkipsTheRest(t *testing.T) {
	tests := []struct {
		config, recorded string
		wantFull         string // empty: skipped
		wantReason       string
	}{
		{"ext", "vars.ext", "vars.ext", ""},
		{"ext", "vars", "vars.ext", ""},
		{"my.ext", "vars.my.ext", "vars.my.ext", ""},
		{"my.ext", "vars", "vars.my.ext", ""},
		{"ext", "vars.other", "", `names ExtensionConfig "other", not "ext"`},
		{"ext", "vars.ext.ext", "", `names ExtensionConfig "ext.ext", not "ext"`},
		{"ext", "a.b.ext", "", `names ExtensionConfig "b.ext", not "ext"`},
		{"ext", ".ext", "", "is not of the form <handler>.ext"},
		{"ext", "vars.", "", "is not of the form <handler>.ext"},
		{"ext", "", "", "empty handler name"},
	}
	for _, tt := range tests {
		ext := &runtimev1.ExtensionConfig{}
		ext.Name = tt.config
		ext.Status.Handlers = []runtimev1.ExtensionHandler{{Name: tt.recorded, TimeoutSeconds: 7}}
		recorded, skipped := RecordedHandlers(ext)
		if tt.wantFull == "" {
			want := []SkippedHandler{{Name: tt.recorded, Reason: tt.wantReason}}
			if len(recorded) > 0 || !reflect.DeepEqual(skipped, want) {
				t.Errorf("%q in %q: read %+v, skipped %+v; want skipped %+v", tt.recorded, tt.config, recorded, skipped, want)
			}
			continue
		}
		if len(recorded) != 1 || skipped != nil {
			t.Fatalf("%q in %q: read %+v, skipped %+v", tt.recorded, tt.config, recorded, skipped)
		}
		r := recorded[0]
		if r.FullName != tt.wantFull || r.HandlerName != "vars" || r.TimeoutSeconds != 7 {
			t.Errorf("%q in %q read as %+v, want full name %q, handler vars", tt.recorded, tt.config, r, tt.wantFull)
		}
	}
}

func TestHandlerStates_AreTheSameForFullAndShortRecordedNames(t *testing.T) {
	short := &runtimev1.ExtensionConfig{}
	short.Name = "ext"
	short.Spec.ClientConfig.URL = "https://ext.example"
	short.Status.Handlers = []runtimev1.ExtensionHandler{{Name: "vars", TimeoutSeconds: 10}, {Name: "patch", TimeoutSeconds: 10}}
	full := short.DeepCopy()
	full.Status.Handlers[0].Name = "vars.ext"
	full.Status.Handlers[1].Name = "patch.ext"
	if changes := Diff(HandlerStates(short), HandlerStates(full)); changes != nil {
		t.Errorf("short to full names changed %+v", changes)
	}
	if got := HandlerStates(full); got[0].Name != "vars.ext" || got[1].Name != "patch.ext" {
		t.Errorf("states named %q, %q", got[0].Name, got[1].Name)
	}
}
