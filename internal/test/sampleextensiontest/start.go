package sampleextensiontest

import (
	"testing"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/sampleextension"
)

// Start serves a new sample extension with opts until the test ends.
func Start(t testing.TB, opts sampleextension.Options) *sampleextension.Running {
	t.Helper()
	s := sampleextension.New(opts)
	url, ca, stop, err := sampleextension.StartTLS(s)
	if err != nil {
		t.Fatalf("start sample extension: %v", err)
	}
	t.Cleanup(stop)
	return &sampleextension.Running{Server: s, URL: url, CA: ca}
}
