package sampleextensiontest

import (
	"testing"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
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

// StartWithVariables serves a new sample extension until the test ends,
// its DiscoverVariablesHandler answering vars (none when vars is empty):
// the extension the controller tests point ExtensionConfigs at.
func StartWithVariables(t testing.TB, vars ...clusterv1.ClusterClassVariable) *sampleextension.Running {
	t.Helper()
	return Start(t, sampleextension.Options{Variables: map[string][]clusterv1.ClusterClassVariable{
		sampleextension.DiscoverVariablesHandler: vars,
	}})
}
