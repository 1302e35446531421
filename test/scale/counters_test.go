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

package scale

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
)

func TestCountersSub_KeepsTheLaterPeakAndDropsUnchangedKeys(t *testing.T) {
	before := Counters{Requests: map[string]float64{"generatepatches": 10, "discovery": 1}, Reconciles: map[string]float64{"cluster": 5},
		APIRequests: 100, APIWrites: 10, CPUSeconds: 1.5, PeakRSSBytes: 100,
		ExtensionBusySeconds: map[string]float64{"generatepatches": 2.5}, ProcessCPUSeconds: map[string]float64{"etcd": 3, "kube-apiserver": 10},
		HostBusySeconds: 50, HostCPUSeconds: 100}
	after := Counters{Requests: map[string]float64{"generatepatches": 25, "discovery": 1, "validatetopology": 3}, Reconciles: map[string]float64{"cluster": 9},
		APIRequests: 150, APIWrites: 12, CPUSeconds: 4, PeakRSSBytes: 200,
		ExtensionBusySeconds: map[string]float64{"generatepatches": 6.25}, ExtensionFailed: map[string]float64{"discovery": 1},
		ProcessCPUSeconds: map[string]float64{"etcd": 3, "kube-apiserver": 30}, HostBusySeconds: 140, HostCPUSeconds: 200}
	got := after.Sub(before)
	want := Counters{Requests: map[string]float64{"generatepatches": 15, "validatetopology": 3}, Reconciles: map[string]float64{"cluster": 4},
		APIRequests: 50, APIWrites: 2, CPUSeconds: 2.5, PeakRSSBytes: 200,
		ExtensionBusySeconds: map[string]float64{"generatepatches": 3.75}, ExtensionFailed: map[string]float64{"discovery": 1},
		ProcessCPUSeconds: map[string]float64{"kube-apiserver": 20}, HostBusySeconds: 90, HostCPUSeconds: 100}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Sub = %+v, want %+v", got, want)
	}
}

// TestRetrying_AScrapeThatFailsIsTriedAgain: a metrics endpoint that
// misses a scrape or two on a busy machine must not end a run of hours.
func TestRetrying_AScrapeThatFailsIsTriedAgain(t *testing.T) {
	var served atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if served.Add(1) <= 2 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, `controller_runtime_reconcile_total{controller="cluster",result="success"} 7`)
	}))
	defer server.Close()

	metrics, err := retrying(context.Background(), time.Minute, time.Millisecond, func() (managerprocess.Metrics, error) {
		return managerprocess.Scrape(context.Background(), server.URL)
	})
	if err != nil {
		t.Fatalf("retrying: %v", err)
	}
	if got := metrics.Sum("controller_runtime_reconcile_total", map[string]string{"controller": "cluster"}); got != 7 {
		t.Errorf("reconciles = %v, want 7", got)
	}
	if got := served.Load(); got != 3 {
		t.Errorf("scrapes = %d, want 3 (two refused, one answered)", got)
	}
}

func TestRetrying_GivesUpWithTheLastErrorAfterTheDeadline(t *testing.T) {
	var served atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		served.Add(1)
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}))
	defer server.Close()

	start := time.Now()
	_, err := retrying(context.Background(), 50*time.Millisecond, 10*time.Millisecond, func() (managerprocess.Metrics, error) {
		return managerprocess.Scrape(context.Background(), server.URL)
	})
	if err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), fmt.Sprintf("%d tries in", served.Load())) {
		t.Errorf("retrying = %v, want the 503 and the %d tries", err, served.Load())
	}
	if served.Load() < 3 {
		t.Errorf("scrapes = %d, want at least 3 within 50ms every 10ms", served.Load())
	}
	if elapsed := time.Since(start); elapsed < 40*time.Millisecond {
		t.Errorf("gave up after %s, want close to 50ms", elapsed)
	}
}

func TestRetrying_StopsAtOnceOnAStopErrorOrACancelledContext(t *testing.T) {
	exited := errors.New("core-manager exited")
	tries := 0
	_, err := retrying(context.Background(), time.Minute, time.Millisecond, func() (int, error) {
		tries++
		return 0, stopRetrying{exited}
	})
	if !errors.Is(err, exited) || tries != 1 {
		t.Errorf("retrying = %v after %d tries, want %v after 1", err, tries, exited)
	}

	ctx, cancel := context.WithCancel(context.Background())
	busy := errors.New("busy")
	_, err = retrying(ctx, time.Hour, time.Minute, func() (int, error) {
		cancel()
		return 0, busy
	})
	if !errors.Is(err, context.Canceled) || !errors.Is(err, busy) {
		t.Errorf("retrying = %v, want the context's error and the last one", err)
	}
}
