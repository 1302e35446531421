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

// Command variablescachememory asks one extension's DiscoverVariables handler
// with distinct settings, one request after another, through the runtime
// client and the variables cache as the ClusterClass controller does, and
// reports what the cache holds. Its test builds it without the race
// detector, which distorts memory, runs it as a process of its own and
// reads that process's memory from /proc.
//
// It discovers the extension at -url first, as the ExtensionConfig
// controller does, so the handler is called with the registration,
// fingerprint and timeout a controller would use. It then writes one JSON
// line, a Report, once it has collected its garbage and handed the freed
// memory back to the system, and keeps the cache until its standard input
// ends, for the test to read its resident memory at rest.
//
// It is a tool for a test; no shipped binary links it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/variablescache"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/procstat"
)

// Report is what one run found. Memory figures are bytes.
type Report struct {
	// MaxBytes is the cache's byte bound as the run set it.
	MaxBytes int64 `json:"maxBytes"`
	// Answers is the number of distinct requests made, Variables the
	// variables in each answer.
	Answers   int `json:"answers"`
	Variables int `json:"variables"`
	// AnswerWeight is what the cache weighs one answer at (Retained).
	AnswerWeight int64 `json:"answerWeight"`
	// Entries and CacheBytes are what the cache holds at the end, and
	// MostCacheBytes the most it held after any request.
	Entries        int   `json:"entries"`
	CacheBytes     int64 `json:"cacheBytes"`
	MostCacheBytes int64 `json:"mostCacheBytes"`
	// Oversize counts the answers too heavy to store at all.
	Oversize int `json:"oversize"`
	// BaselineResident is the process's resident memory before the first
	// call, collected as at the end: the runtime, the client and this
	// program.
	BaselineResident int64 `json:"baselineResident"`
	// LiveHeap is the Go heap in use at the end, after a collection, and
	// HeapInUse the spans that hold it, with the free slots among it.
	LiveHeap  int64 `json:"liveHeap"`
	HeapInUse int64 `json:"heapInUse"`
	// Seconds is how long the requests took.
	Seconds float64 `json:"seconds"`
}

func main() {
	url := flag.String("url", "", "base URL of the extension (https://host:port)")
	caFile := flag.String("ca", "", "file of the PEM CA that signed the extension's certificate")
	handlerName := flag.String("handler", "", "the DiscoverVariables handler's discovered name")
	answers := flag.Int("answers", 40, "distinct requests to make, one after another")
	maxBytes := flag.Int64("max-bytes", 0, "the cache's byte bound: 0 is userfacing.DefaultVariablesCacheMaxBytes, and a negative value none")
	flag.Parse()

	report, cache, err := run(*url, *caFile, *handlerName, *answers, *maxBytes)
	if err != nil {
		fmt.Fprintln(os.Stderr, "variablescachememory:", err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(report); err != nil {
		fmt.Fprintln(os.Stderr, "variablescachememory:", err)
		os.Exit(1)
	}
	// The test reads the resident memory now; the cache must still hold
	// its answers.
	_, _ = io.Copy(io.Discard, os.Stdin)
	runtime.KeepAlive(cache)
}

func run(url, caFile, handlerName string, answers int, maxBytes int64) (Report, *variablescache.Cache[[]clusterv1.ClusterClassVariable], error) {
	ctx := context.Background()
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return Report{}, nil, err
	}
	report := Report{MaxBytes: maxBytes, Answers: answers}
	if maxBytes == 0 {
		report.MaxBytes = userfacing.DefaultVariablesCacheMaxBytes
	}
	if maxBytes < 0 {
		report.MaxBytes = math.MaxInt64
	}
	client, err := rtclient.New(rtclient.Options{})
	if err != nil {
		return Report{}, nil, err
	}
	handler, err := discover(ctx, client, runtimev1.ClientConfig{URL: url, CABundle: ca}, handlerName)
	if err != nil {
		return Report{}, nil, err
	}
	// As internal/controllers makes it, but for the bound under test.
	cache := variablescache.New[[]clusterv1.ClusterClassVariable](variablescache.Options{
		MaxBytes: report.MaxBytes,
		Equal:    func(a, b any) bool { return equality.Semantic.DeepEqual(a, b) },
		Oversize: func(string, int64) { report.Oversize++ },
	})
	report.BaselineResident, err = collectedResident()
	if err != nil {
		return Report{}, nil, err
	}

	started := time.Now()
	for i := range answers {
		// Each ClusterClass asks with settings of its own: a request of its
		// own, an entry of its own.
		user := types.NamespacedName{Namespace: "memory", Name: "class-" + strconv.Itoa(i)}
		settings := map[string]string{"answer": strconv.Itoa(i)}
		vars, outcome, err := cache.GetFor(ctx, user, handler.Name, handler.Fingerprint, settings, callFor(client, handler, settings))
		if err != nil {
			return Report{}, nil, fmt.Errorf("request %d: %w", i, err)
		}
		if outcome != variablescache.Called {
			return Report{}, nil, fmt.Errorf("request %d: outcome %s, want a call: the settings are distinct", i, outcome)
		}
		if i == 0 {
			report.Variables = len(vars)
			report.AnswerWeight = variablescache.Retained(vars)
		} else if len(vars) != report.Variables {
			return Report{}, nil, fmt.Errorf("request %d: %d variables, the first had %d", i, len(vars), report.Variables)
		}
		report.MostCacheBytes = max(report.MostCacheBytes, cache.Bytes())
	}
	report.Seconds = time.Since(started).Seconds()

	report.Entries, report.CacheBytes = cache.Len(), cache.Bytes()
	if _, err := collectedResident(); err != nil {
		return Report{}, nil, err
	}
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	report.LiveHeap = int64(stats.HeapAlloc)
	report.HeapInUse = int64(stats.HeapInuse)
	return report, cache, nil
}

// discover registers the extension at config as the ExtensionConfig
// controller does and returns its DiscoverVariables handler named name.
func discover(ctx context.Context, client *rtclient.Client, config runtimev1.ClientConfig, name string) (registry.Handler, error) {
	ext := &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: "memory"}, Spec: runtimev1.ExtensionConfigSpec{ClientConfig: config}}
	discovered, err := client.Discover(ctx, ext)
	if err != nil {
		return registry.Handler{}, err
	}
	// Under their full names, as the controller records them.
	ext.Status.Handlers = discovered
	handlers, _, err := registry.HandlersFor(ext)
	if err != nil {
		return registry.Handler{}, err
	}
	for _, h := range handlers {
		if h.HandlerName == name && h.Hook.Hook == "DiscoverVariables" {
			return h, nil
		}
	}
	return registry.Handler{}, errors.New("the extension has no DiscoverVariables handler " + name)
}

// callFor is the call the ClusterClass controller makes for a patch with
// these settings (internal/controllers/clusterclass discover).
func callFor(client *rtclient.Client, handler registry.Handler, settings map[string]string) func(context.Context) ([]clusterv1.ClusterClassVariable, error) {
	return func(ctx context.Context) ([]clusterv1.ClusterClassVariable, error) {
		request := &runtimehooksv1.DiscoverVariablesRequest{}
		request.Settings = settings
		response := &runtimehooksv1.DiscoverVariablesResponse{}
		timeout := time.Duration(handler.TimeoutSeconds) * time.Second
		if err := client.Call(ctx, handler.ClientConfig, handler.Hook, handler.HandlerName, timeout, handler.Settings, request, response); err != nil {
			return nil, err
		}
		return response.Variables, nil
	}
}

// collectedResident collects garbage, hands the freed memory back to the
// system and reads the resident memory left.
func collectedResident() (int64, error) {
	debug.FreeOSMemory()
	return procstat.StatusBytes(os.Getpid(), procstat.ResidentNow)
}
