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
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

func TestRun_BadInputIsOneLineAndANonZeroExit(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()

	dir := t.TempDir()
	notAList := writeFile(t, dir, "not-a-list.yaml", "name: region\n")
	misspelt := writeFile(t, dir, "misspelt.yaml", "- name: region\n  shema: {}\n")
	garbageCert := writeFile(t, dir, "garbage.crt", "not a certificate")
	missing := filepath.Join(dir, "missing.yaml")
	// Every case that gets past the flags must not bind the default ports.
	free := []string{"--address", "127.0.0.1:0", "--admin-address", "", "--ca-out", filepath.Join(dir, "ca.crt")}

	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  []string
	}{
		{name: "unknown flag", args: []string{"--no-such-flag"}, wantCode: 2, wantErr: []string{"no-such-flag"}},
		{name: "argument", args: []string{"extra"}, wantCode: 2, wantErr: []string{`unexpected argument "extra"`}},
		{name: "certificate without key", args: []string{"--cert-file", garbageCert}, wantCode: 2, wantErr: []string{"--cert-file and --key-file"}},
		{name: "error rate NaN", args: []string{"--error-rate", "NaN"}, wantCode: 2, wantErr: []string{"--error-rate NaN"}},
		{name: "error rate above 1", args: []string{"--error-rate", "1.5"}, wantCode: 2, wantErr: []string{"--error-rate 1.5 is not between 0 and 1"}},
		{name: "negative delay", args: []string{"--delay", "-1s"}, wantCode: 2, wantErr: []string{"--delay -1s is negative"}},
		{name: "unreadable variables file", args: append([]string{"--variables-file", missing}, free...), wantCode: 1, wantErr: []string{"--variables-file", missing}},
		{name: "variables file that is not a list", args: append([]string{"--variables-file", notAList}, free...), wantCode: 1, wantErr: []string{notAList, "not a list"}},
		{name: "variables file with a misspelt field", args: append([]string{"--variables-file", misspelt}, free...), wantCode: 1, wantErr: []string{"shema"}},
		{name: "certificate that does not parse", args: append([]string{"--cert-file", garbageCert, "--key-file", garbageCert}, free...), wantCode: 1, wantErr: []string{"--cert-file " + garbageCert}},
		{name: "CA that cannot be written", args: append(append([]string{}, free...), "--ca-out", filepath.Join(missing, "ca.crt")), wantCode: 1, wantErr: []string{"--ca-out"}},
		{name: "address in use", args: append(append([]string{}, free...), "--address", busy.Addr().String()), wantCode: 1, wantErr: []string{"--address " + busy.Addr().String()}},
		{name: "admin address in use", args: append(append([]string{}, free...), "--admin-address", busy.Addr().String()), wantCode: 1, wantErr: []string{"--admin-address " + busy.Addr().String()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var stdout, stderr bytes.Buffer
			code := run(ctx, tt.args, &stdout, &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", code, tt.wantCode, stderr.String())
			}
			out := stderr.String()
			for _, want := range tt.wantErr {
				if !strings.Contains(out, want) {
					t.Errorf("stderr %q does not mention %q", out, want)
				}
			}
			if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") || !strings.HasPrefix(out, name+": ") {
				t.Errorf("stderr is not one line starting with %q:\n%s", name+": ", out)
			}
		})
	}
}

func TestRun_HelpPrintsUsageAndExitsZero(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d, want 0; stderr: %s", code, stderr.String())
	}
	for _, flag := range []string{"-address", "-cert-file", "-key-file", "-hosts", "-ca-out", "-variables-file", "-admin-address", "-delay", "-error-rate"} {
		if !strings.Contains(stdout.String(), flag) {
			t.Errorf("usage does not mention %s:\n%s", flag, stdout.String())
		}
	}
}

func TestRun_ServesUntilTheContextIsCancelled(t *testing.T) {
	dir := t.TempDir()
	variablesFile := writeFile(t, dir, "variables.yaml", `
- name: region
  required: true
  schema:
    openAPIV3Schema:
      type: string
      enum: [eu, us]
`)
	// Given certificate files: a CA the test keeps, and no --ca-out written.
	givenCA, certPEM, keyPEM, err := sampleextension.SelfSignedCertificate([]string{"127.0.0.1"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	certFile := writeFile(t, dir, "tls.crt", string(certPEM))
	keyFile := writeFile(t, dir, "tls.key", string(keyPEM))

	tests := []struct {
		name      string
		args      []string
		caOut     string
		wantCAOut bool
		ca        []byte // nil: read from caOut
	}{
		{name: "generated certificate", caOut: filepath.Join(dir, "generated-ca.crt"), wantCAOut: true},
		{name: "certificate files", args: []string{"--cert-file", certFile, "--key-file", keyFile}, caOut: filepath.Join(dir, "unused-ca.crt"), ca: givenCA},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			stdout := &polltest.Buffer{}
			var stderr bytes.Buffer
			args := append([]string{
				"--address", "127.0.0.1:0", "--admin-address", "127.0.0.1:0",
				"--ca-out", tt.caOut, "--variables-file", variablesFile,
			}, tt.args...)
			exited := make(chan int, 1)
			go func() { exited <- run(ctx, args, stdout, &stderr) }()

			extURL := waitForLine(t, stdout, exited, regexp.MustCompile(`serving the Runtime Extension on (https://127\.0\.0\.1:\d+)`))
			adminURL := waitForLine(t, stdout, exited, regexp.MustCompile(`serving the admin endpoint on (http://127\.0\.0\.1:\d+)`))

			_, statErr := os.Stat(tt.caOut)
			if wrote := statErr == nil; wrote != tt.wantCAOut {
				t.Fatalf("--ca-out written: %t, want %t", wrote, tt.wantCAOut)
			}
			ca := tt.ca
			if ca == nil {
				if ca, err = os.ReadFile(tt.caOut); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(stdout.String(), tt.caOut) {
					t.Errorf("stdout does not say where the CA is:\n%s", stdout.String())
				}
			}

			client := caClient(t, ca)
			resp, err := client.Post(extURL+"/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovervariables/discover-variables", "application/json",
				strings.NewReader(`{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"DiscoverVariablesRequest"}`))
			if err != nil {
				t.Fatal(err)
			}
			var got runtimehooksv1.DiscoverVariablesResponse
			err = json.NewDecoder(resp.Body).Decode(&got)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != runtimehooksv1.ResponseStatusSuccess || len(got.Variables) != 1 || got.Variables[0].Name != "region" ||
				len(got.Variables[0].Schema.OpenAPIV3Schema.Enum) != 2 {
				t.Errorf("DiscoverVariables answered %+v, want region from the variables file", got)
			}

			resp, err = http.Get(adminURL + "/calls")
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"total":1,"calls":{"DiscoverVariables/discover-variables":1}}`; string(body) != want {
				t.Errorf("GET /calls = %s, want %s", body, want)
			}

			cancel()
			if code := waitForExit(t, exited); code != 0 {
				t.Errorf("exit code %d after cancel, want 0; stderr:\n%s", code, stderr.String())
			}
		})
	}
}

func TestRun_FaultFlagsApplyToEveryCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	caOut := filepath.Join(dir, "ca.crt")
	stdout := &polltest.Buffer{}
	var stderr bytes.Buffer
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"--address", "127.0.0.1:0", "--admin-address", "", "--ca-out", caOut, "--error-rate", "1"}, stdout, &stderr)
	}()
	extURL := waitForLine(t, stdout, exited, regexp.MustCompile(`serving the Runtime Extension on (https://127\.0\.0\.1:\d+)`))
	if strings.Contains(stdout.String(), "admin endpoint") {
		t.Errorf("--admin-address \"\" still serves the admin endpoint:\n%s", stdout.String())
	}
	ca, err := os.ReadFile(caOut)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := caClient(t, ca).Post(extURL+sampleextension.DiscoveryPath, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("Discovery with --error-rate 1: HTTP %d, want 500", resp.StatusCode)
	}
	cancel()
	if code := waitForExit(t, exited); code != 0 {
		t.Errorf("exit code %d, want 0; stderr:\n%s", code, stderr.String())
	}
}

// waitForLine returns the first group of re in stdout, failing after 30s
// or as soon as run exits without printing it.
func waitForLine(t *testing.T, stdout *polltest.Buffer, exited <-chan int, re *regexp.Regexp) string {
	t.Helper()
	var found string
	polltest.Eventually(t, 30*time.Second, fmt.Sprintf("a line matching %s", re), func() (bool, string) {
		if m := re.FindStringSubmatch(stdout.String()); m != nil {
			found = m[1]
			return true, ""
		}
		select {
		case code := <-exited:
			t.Fatalf("run exited with %d before printing %s; stdout:\n%s", code, re, stdout.String())
		default:
		}
		return false, "stdout:\n" + stdout.String()
	})
	return found
}

func waitForExit(t *testing.T, exited <-chan int) int {
	t.Helper()
	select {
	case code := <-exited:
		return code
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return within 10s of its context being cancelled")
		return 0
	}
}

// caClient returns a client whose only root is the CA in caPEM.
func caClient(t *testing.T, caPEM []byte) *http.Client {
	t.Helper()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatalf("no certificate in:\n%s", caPEM)
	}
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}
	t.Cleanup(transport.CloseIdleConnections)
	return &http.Client{Transport: transport, Timeout: 30 * time.Second}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
