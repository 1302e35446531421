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

package runecut

import "testing"

func TestPrefix_CutsOnARuneBoundaryWithinTheBudget(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"fits", "abc", 3, "abc"},
		{"fits with room", "abc", 10, "abc"},
		{"ascii cut", "abcdef", 4, "abcd"},
		{"empty", "", 4, ""},
		{"zero budget", "abc", 0, ""},
		{"negative budget", "abc", -1, ""},
		{"cut lands after a two-byte rune", "aé", 3, "aé"},
		{"cut lands inside a two-byte rune", "aéb", 2, "a"},
		{"cut lands inside a three-byte rune", "a€b", 3, "a"},
		{"cut lands after a three-byte rune", "a€b", 4, "a€"},
		{"cut lands inside a four-byte rune", "ab😀c", 5, "ab"},
		{"cut lands on the last byte of a four-byte rune", "ab😀c", 6, "ab😀"},
		{"first rune does not fit", "😀", 3, ""},
		{"invalid UTF-8 is cut by bytes", "a\xffb", 2, "a\xff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Prefix(tt.s, tt.n); got != tt.want {
				t.Errorf("Prefix(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
			}
		})
	}
}
