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

package readmetest

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// DocText is the document at path (relative to the project's root) with
// every run of white space, line breaks included, made one space: its
// lines are wrapped anywhere.
func DocText(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(Doc(path))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(data)), " ")
}

// Figures are the submatches of every match of pattern in text; none fails
// t, as the sentence that carried the figure has changed.
func Figures(t testing.TB, text, pattern string) [][]string {
	t.Helper()
	var figures [][]string
	for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(text, -1) {
		figures = append(figures, m[1:])
	}
	if len(figures) == 0 {
		t.Fatalf("nothing matches %q", pattern)
	}
	return figures
}

// FigureAs reads a figure as the type of want: an int64 count ("10,000")
// or size ("32 MiB", "4 KiB"), or a time.Duration ("0.5 s", "500 ms",
// "3 minutes").
func FigureAs(t testing.TB, figure string, want any) any {
	t.Helper()
	switch want.(type) {
	case time.Duration:
		spelled := strings.NewReplacer(" minutes", "m", " minute", "m", " ", "").Replace(figure)
		d, err := time.ParseDuration(spelled)
		if err != nil {
			t.Fatalf("figure %q: %v", figure, err)
		}
		return d
	case int64:
		number, unit, _ := strings.Cut(figure, " ")
		n, err := strconv.ParseInt(strings.ReplaceAll(number, ",", ""), 10, 64)
		if err != nil {
			t.Fatalf("figure %q: %v", figure, err)
		}
		switch unit {
		case "":
		case "KiB":
			n <<= 10
		case "MiB":
			n <<= 20
		default:
			t.Fatalf("figure %q: unit %q", figure, unit)
		}
		return n
	}
	t.Fatalf("no reading of figures as %T", want)
	return nil
}
