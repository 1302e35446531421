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
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/config/crd"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/proctest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
)

func TestRun_BadInputIsOneLineAndANonZeroExit(t *testing.T) {
	garbage := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(garbage, []byte("clusters: [this is: not: a kubeconfig"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	quiet := []string{"--metrics-bind-address=0", "--health-probe-bind-address=0"}

	tests := []struct {
		name       string
		args       []string
		kubeconfig string // $KUBECONFIG, when set
		wantCode   int
		wantErr    []string
	}{
		{name: "kubeconfig that does not parse", args: []string{"--kubeconfig", garbage}, wantCode: 1, wantErr: []string{"kubeconfig " + garbage}},
		{name: "no cluster to run against", kubeconfig: missing, wantCode: 1, wantErr: []string{"no cluster to run against (pass --kubeconfig or set KUBECONFIG)"}},
		{name: "unknown flag", args: []string{"--no-such-flag"}, wantCode: 2, wantErr: []string{"no-such-flag"}},
		{name: "no requests to kube-apiserver", args: []string{"--kube-api-qps=0"}, wantCode: 2, wantErr: []string{"--kube-api-qps must be above 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.kubeconfig != "" {
				t.Setenv("KUBECONFIG", tt.kubeconfig)
			}
			var stderr bytes.Buffer
			code := run(context.Background(), append(append([]string{}, quiet...), tt.args...), &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", code, tt.wantCode, stderr.String())
			}
			out := stderr.String()
			for _, want := range tt.wantErr {
				if !strings.Contains(out, want) {
					t.Errorf("stderr %q does not mention %q", out, want)
				}
			}
			if strings.Contains(out, "goroutine ") || strings.Contains(out, "panic:") {
				t.Errorf("stderr holds a stack trace:\n%s", out)
			}
			// Flag errors come with usage text; every other failure is one line.
			if tt.wantCode == 1 && strings.Count(strings.TrimSpace(out), "\n") != 0 {
				t.Errorf("stderr is not one line:\n%s", out)
			}
		})
	}
}

// buildBinary compiles the command once for the process-level tests.
func buildBinary(t *testing.T) string {
	t.Helper()
	return proctest.Build(t, ".", t.TempDir())
}

// startManager runs the binary against kubeconfig and waits until its
// /readyz answers: the manager runs, its registry warmed up.
func startManager(t *testing.T, binary, kubeconfig string) *exec.Cmd {
	t.Helper()
	probePort, err := localcluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	probes := "127.0.0.1:" + strconv.Itoa(probePort)
	cmd := exec.Command(binary, "--kubeconfig", kubeconfig, "--metrics-bind-address=0", "--health-probe-bind-address="+probes)
	var stderr polltest.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	polltest.Eventually(t, time.Minute, "the manager is ready", func() (bool, string) {
		resp, err := http.Get("http://" + probes + "/readyz")
		if err != nil {
			return false, err.Error() + "; stderr:\n" + stderr.String()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, "readyz " + resp.Status
	})
	return cmd
}

// SIGTERM (what the kubelet sends a pod) and SIGINT (Ctrl-C) stop the
// manager with exit code 0.
func TestBinary_SignalsStopTheManagerCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane and the manager twice")
	}
	cluster := startTestCluster(t)
	binary := buildBinary(t)

	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := startManager(t, binary, cluster.KubeconfigPath())
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("manager did not exit cleanly on %s: %v", sig, err)
			}
		})
	}
}

// startTestCluster starts a control plane with the CRDs observe mode reads,
// stopped when the test ends.
func startTestCluster(t *testing.T) *localcluster.Cluster {
	t.Helper()
	binDir, err := toolbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	crds, err := crd.Definitions()
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := localcluster.Start(context.Background(), localcluster.Options{Dir: t.TempDir(), BinDir: binDir, CRDs: crds})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cluster.Stop() })
	return cluster
}
