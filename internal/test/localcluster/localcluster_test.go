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

package localcluster

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/config/crd"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
)

func startCluster(t *testing.T, dir string, port int) *Cluster {
	t.Helper()
	toolbin.SkipShort(t)
	binDir, err := toolbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	crds, err := crd.Definitions()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Start(context.Background(), Options{Dir: dir, BinDir: binDir, APIServerPort: port, CRDs: crds})
	if err != nil {
		t.Fatalf("start local control plane: %v", err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

// kubeconfigClient builds a client from the written kubeconfig file, the way
// a user's kubectl would reach the cluster.
func kubeconfigClient(t *testing.T, c *Cluster) client.Client {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", c.KubeconfigPath())
	if err != nil {
		t.Fatalf("kubeconfig does not load: %v", err)
	}
	cl, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// pids returns the process ids of etcd and kube-apiserver (0 when not
// running).
func (c *Cluster) pids() (etcd, apiserver int) {
	return c.etcd.pid(), c.apiserver.pid()
}

// pid is the running process's id, or 0.
func (p *Process) pid() int {
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

func processGone(pid int) bool {
	err := syscall.Kill(pid, 0)
	return errors.Is(err, syscall.ESRCH)
}

func TestCluster_ObjectsSurviveARestartAndStopLeavesNoProcesses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()

	first := startCluster(t, dir, 0)
	cl := kubeconfigClient(t, first)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "survivor"},
		Data:       map[string]string{"kept": "yes"},
	}
	if err := cl.Create(ctx, cm); err != nil {
		t.Fatalf("create ConfigMap: %v", err)
	}
	// The CRDs are installed and served.
	ext := &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "survivor"},
		Spec:       runtimev1.ExtensionConfigSpec{ClientConfig: runtimev1.ClientConfig{URL: "https://127.0.0.1:1"}},
	}
	if err := cl.Create(ctx, ext); err != nil {
		t.Fatalf("create ExtensionConfig: %v", err)
	}
	etcdPID, apiserverPID := first.pids()
	if etcdPID == 0 || apiserverPID == 0 {
		t.Fatalf("PIDs not known: etcd %d, apiserver %d", etcdPID, apiserverPID)
	}
	firstHost := first.Config().Host

	if err := first.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	for name, pid := range map[string]int{"etcd": etcdPID, "kube-apiserver": apiserverPID} {
		if !processGone(pid) {
			t.Errorf("%s (pid %d) still running after Stop", name, pid)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "run")); len(entries) != 0 {
		t.Errorf("pid files left behind: %v", entries)
	}

	second := startCluster(t, dir, 0)
	if second.Config().Host != firstHost {
		t.Errorf("restart moved the apiserver from %s to %s; the kubeconfig would go stale", firstHost, second.Config().Host)
	}
	cl = kubeconfigClient(t, second)
	got := &corev1.ConfigMap{}
	if err := cl.Get(ctx, client.ObjectKeyFromObject(cm), got); err != nil {
		t.Fatalf("ConfigMap lost across restart: %v", err)
	}
	if got.Data["kept"] != "yes" {
		t.Errorf("ConfigMap data changed across restart: %v", got.Data)
	}
	if err := cl.Get(ctx, client.ObjectKeyFromObject(ext), &runtimev1.ExtensionConfig{}); err != nil {
		t.Fatalf("ExtensionConfig lost across restart: %v", err)
	}
}

func TestCluster_APIServerRestartKeepsData(t *testing.T) {
	ctx := context.Background()
	c := startCluster(t, t.TempDir(), 0)
	cl := kubeconfigClient(t, c)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "restart"}}
	if err := cl.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	if err := c.StopAPIServer(); err != nil {
		t.Fatalf("stop apiserver: %v", err)
	}
	if err := cl.Get(ctx, client.ObjectKeyFromObject(ns), &corev1.Namespace{}); err == nil {
		t.Fatal("apiserver still answers after StopAPIServer")
	}
	if err := c.StartAPIServer(ctx); err != nil {
		t.Fatalf("start apiserver again: %v", err)
	}
	if err := cl.Get(ctx, client.ObjectKeyFromObject(ns), &corev1.Namespace{}); err != nil {
		t.Fatalf("namespace lost across an apiserver restart: %v", err)
	}
}

func TestStart_RejectsBadInputBeforeStartingAnything(t *testing.T) {
	toolbin.SkipShort(t)
	binDir, err := toolbin.Dir()
	if err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := busy.Addr().(*net.TCPAddr).Port

	aFile := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(aFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		opts    Options
		wantErr []string
	}{
		{
			name:    "port in use",
			opts:    Options{Dir: t.TempDir(), BinDir: binDir, APIServerPort: busyPort},
			wantErr: []string{"port " + strconv.Itoa(busyPort), "in use"},
		},
		{
			name:    "data directory under a file",
			opts:    Options{Dir: filepath.Join(aFile, "data"), BinDir: binDir},
			wantErr: []string{"data directory", aFile},
		},
		{
			name:    "missing binaries",
			opts:    Options{Dir: t.TempDir(), BinDir: t.TempDir()},
			wantErr: []string{"etcd is missing", "make tools"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Start(context.Background(), tt.opts)
			if err == nil {
				_ = c.Stop()
				t.Fatal("Start succeeded")
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans several lines: %q", err)
			}
			if _, statErr := os.Stat(filepath.Join(tt.opts.Dir, "run", "etcd.pid")); statErr == nil {
				t.Error("etcd was started although the input was rejected")
			}
		})
	}
}

func TestStart_RefusesADirectoryInUseByAnotherRun(t *testing.T) {
	dir := t.TempDir()
	startCluster(t, dir, 0)
	binDir, _ := toolbin.Dir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	second, err := Start(ctx, Options{Dir: dir, BinDir: binDir})
	if err == nil {
		_ = second.Stop()
		t.Fatal("a second control plane started on the same data directory")
	}
	if !strings.Contains(err.Error(), "in use") && !strings.Contains(err.Error(), "still running") {
		t.Errorf("error does not explain the conflict: %v", err)
	}
}
