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

package client

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runecut"
)

// redact drops anything but scheme, host and path from a URL for messages.
func redact(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// snippet is the start of a body for an error message: enough to recognise
// an HTML error page or a stack trace, never a flood.
func snippet(data []byte) string {
	s := printable(string(data))
	if s == "" {
		return "(empty body)"
	}
	return strconv.Quote(s)
}

// maxSnippetBytes bounds what an extension's words may put into a
// condition that tenants read.
const maxSnippetBytes = 200

// printable keeps what an extension said fit for a condition: valid UTF-8
// with control and invisible format characters (terminal escapes,
// zero-width spaces) blanked, runs of white space folded, and cut at a
// rune boundary after maxSnippetBytes.
func printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxSnippetBytes {
		return s
	}
	return runecut.Prefix(s, maxSnippetBytes) + "..."
}
