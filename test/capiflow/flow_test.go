package capiflow

import "testing"

func TestHookOfPath_NamesTheHookOfARequestPath(t *testing.T) {
	for path, want := range map[string]string{
		"/hooks.runtime.cluster.x-k8s.io/v1alpha1/generatepatches/generate-patches": "generatepatches",
		"/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery":                        "discovery",
		"/healthz": "/healthz",
	} {
		if got := HookOfPath(path); got != want {
			t.Errorf("HookOfPath(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestSucceeded_TellsALetThroughAnswerFromABlockingOne(t *testing.T) {
	for recorded, want := range map[string]bool{
		"Success":                               true,
		"Status: Success, RetryAfterSeconds: 0": true,
		"Status: Success, RetryAfterSeconds: 5": false,
		"Status: Failure, RetryAfterSeconds: 0": false,
		"Failure":                               false,
		"":                                      false,
	} {
		if got := succeeded(recorded); got != want {
			t.Errorf("succeeded(%q) = %v, want %v", recorded, got, want)
		}
	}
}
