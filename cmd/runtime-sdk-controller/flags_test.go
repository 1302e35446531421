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
	"io"
	"testing"
)

// Metrics are served securely unless the operator says otherwise.
func TestParseFlags_MetricsAreSecureUnlessSaidOtherwise(t *testing.T) {
	for _, c := range []struct {
		args        []string
		secure      bool
		bindAddress string
	}{
		{nil, true, ":8443"},
		{[]string{"--kubeconfig", "some/kubeconfig"}, true, ":8443"},
		{[]string{"--metrics-secure=false", "--metrics-bind-address=:8080"}, false, ":8080"},
		{[]string{"--metrics-bind-address=0"}, true, "0"},
	} {
		o, err := parseFlags(c.args, io.Discard)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if o.manager.MetricsSecure != c.secure || o.manager.MetricsBindAddress != c.bindAddress {
			t.Errorf("%v: secure %v on %q, want %v on %q", c.args, o.manager.MetricsSecure, o.manager.MetricsBindAddress, c.secure, c.bindAddress)
		}
	}
}
