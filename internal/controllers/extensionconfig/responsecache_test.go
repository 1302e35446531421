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

package extensionconfig

import (
	"strings"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

func TestParseResponseCacheMaxAge(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string
		want        time.Duration
		present     bool
		wantErr     bool
	}{
		{"absent", map[string]string{"other": "1m"}, 0, false, false},
		{"a duration", map[string]string{userfacing.ResponseCacheMaxAgeAnnotation: "10m"}, 10 * time.Minute, true, false},
		{"hours and minutes", map[string]string{userfacing.ResponseCacheMaxAgeAnnotation: "1h30m"}, 90 * time.Minute, true, false},
		{"no unit", map[string]string{userfacing.ResponseCacheMaxAgeAnnotation: "600"}, 0, true, true},
		{"zero", map[string]string{userfacing.ResponseCacheMaxAgeAnnotation: "0s"}, 0, true, true},
		{"negative", map[string]string{userfacing.ResponseCacheMaxAgeAnnotation: "-1m"}, 0, true, true},
		{"empty", map[string]string{userfacing.ResponseCacheMaxAgeAnnotation: ""}, 0, true, true},
	}
	for _, tt := range tests {
		got, present, err := parseResponseCacheMaxAge(tt.annotations)
		if got != tt.want || present != tt.present || (err != nil) != tt.wantErr {
			t.Errorf("%s: got %v, %v, %v; want %v, %v, error %v", tt.name, got, present, err, tt.want, tt.present, tt.wantErr)
		}
		if err != nil && (!strings.Contains(err.Error(), userfacing.ResponseCacheMaxAgeAnnotation) || !strings.Contains(err.Error(), `"`+tt.annotations[userfacing.ResponseCacheMaxAgeAnnotation]+`"`)) {
			t.Errorf("%s: error %q does not name the annotation and the value", tt.name, err)
		}
	}
}
