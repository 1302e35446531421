package devrun

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestConsoleLine_ShowsWarningsAndErrorsOnceWithoutTheirReconcileID(t *testing.T) {
	for _, tc := range []struct {
		raw, want string
		shown     bool
	}{
		{`{"level":"info","ts":"2026-12-03T13:33:15Z","msg":"Starting"}`, "", false},
		{`{"level":"error","ts":"2026-12-03T13:33:15Z","logger":"clusterclass","msg":"Reconciler error","error":"boom","reconcileID":"abc"}`,
			"ERROR clusterclass: Reconciler error error=boom", true},
		{`{"level":"warn","ts":1764768795.5,"msg":"slow"}`, "WARN slow", true},
		{`panic: runtime error`, "panic: runtime error", true},
	} {
		line, key, ok := consoleLine([]byte(tc.raw))
		if ok != tc.shown {
			t.Errorf("%s: shown %v, want %v", tc.raw, ok, tc.shown)
			continue
		}
		if ok && (!strings.HasSuffix(line, tc.want) || strings.Contains(key, "reconcileID")) {
			t.Errorf("%s: line %q key %q, want a line ending %q and a key without the reconcile ID", tc.raw, line, key, tc.want)
		}
	}
}

func TestPointAtExtension_RewritesOnlyTheDefaultAddress(t *testing.T) {
	config := func(url string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"kind": "ExtensionConfig"}}
		_ = unstructured.SetNestedField(u.Object, url, "spec", "clientConfig", "url")
		return u
	}
	for _, tc := range []struct{ url, want string }{
		{"https://" + DefaultExtensionAddress, "https://127.0.0.1:19443"},
		{"https://elsewhere:443", "https://elsewhere:443"},
	} {
		u := config(tc.url)
		pointAtExtension(u, "https://127.0.0.1:19443")
		if got, _, _ := unstructured.NestedString(u.Object, "spec", "clientConfig", "url"); got != tc.want {
			t.Errorf("%s became %s, want %s", tc.url, got, tc.want)
		}
	}
}

func TestOptions_OnlyALocalFullLaunchStartsTheExtension(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want bool
	}{{Options{}, true}, {Options{Bare: true}, false}, {Options{Kubeconfig: "/k"}, false}} {
		if got := tc.o.withExtension(); got != tc.want {
			t.Errorf("%+v: extension %v, want %v", tc.o, got, tc.want)
		}
	}
}

func TestServingCertificate_IsKeptForItsHostAndRenewedForAnother(t *testing.T) {
	dir := t.TempDir()
	first, _, _, err := servingCertificate(dir, "127.0.0.1:9443")
	if err != nil {
		t.Fatal(err)
	}
	again, _, _, err := servingCertificate(dir, "127.0.0.1:19443")
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(first) {
		t.Error("another port on the same host replaced the CA the cluster holds")
	}
	other, certFile, _, err := servingCertificate(dir, "10.0.0.7:9443")
	if err != nil {
		t.Fatal(err)
	}
	if string(other) == string(first) || !stillServes(certFile, "10.0.0.7") {
		t.Error("a host the certificate does not name kept the old certificate")
	}
}

func TestCheckControllerArgs_RefusesWhatTheLauncherSets(t *testing.T) {
	if err := checkControllerArgs([]string{"--zap-log-level=debug", "--clusterclass-concurrency", "4"}); err != nil {
		t.Errorf("controller flags of its own: %v", err)
	}
	for _, arg := range []string{"--metrics-bind-address=:9000", "-kubeconfig", "--health-probe-bind-address"} {
		if err := checkControllerArgs([]string{arg}); err == nil || !strings.Contains(err.Error(), "set by rsc-dev") {
			t.Errorf("%s: %v, want a refusal", arg, err)
		}
	}
}

func TestStopLogged_SaysStoppingBeforeAndStoppedOnceTheStopReturned(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, "stopping sample extension\n(stop runs)\nsample extension stopped\n"},
		{errors.New("sample-extension did not stop within 5s and was killed"),
			"stopping sample extension\n(stop runs)\nstop sample extension: sample-extension did not stop within 5s and was killed\nsample extension stopped\n"},
	} {
		var out bytes.Buffer
		stopLogged(&out, "sample extension", func() error {
			out.WriteString("(stop runs)\n")
			return tc.err
		})
		if out.String() != tc.want {
			t.Errorf("stop returning %v: wrote %q, want %q", tc.err, out.String(), tc.want)
		}
	}
}
