package main

import (
	"io"
	"testing"
)

// Metrics are served securely unless the operator says otherwise, or runs
// --local, where they stay on this machine over plain HTTP.
func TestParseFlags_MetricsAreSecureExceptForLocalRuns(t *testing.T) {
	for _, c := range []struct {
		args        []string
		secure      bool
		bindAddress string
	}{
		{nil, true, ":8443"},
		{[]string{"--metrics-secure=false", "--metrics-bind-address=:8080"}, false, ":8080"},
		{[]string{"--local"}, false, "127.0.0.1:8080"},
		{[]string{"--local", "--metrics-secure"}, true, "127.0.0.1:8080"},
		{[]string{"--local", "--metrics-bind-address=0"}, false, "0"},
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
