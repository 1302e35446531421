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

package sampleextension_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

func TestServer_FaultsBehaveAsDocumented(t *testing.T) {
	tests := []struct {
		name   string
		faults sampleextension.Faults
		path   string
		check  func(t *testing.T, resp response, err error)
	}{
		{
			name:   "rates of 0 answer normally",
			faults: sampleextension.Faults{ErrorRate: 0, TimeoutRate: 0, DropRate: 0, FailureRate: 0},
			path:   discoverVariablesPath,
			check: func(t *testing.T, resp response, err error) {
				got := mustDecode[runtimehooksv1.DiscoverVariablesResponse](t, resp, err)
				if resp.status != http.StatusOK || got.Status != runtimehooksv1.ResponseStatusSuccess || len(got.Variables) != 1 {
					t.Errorf("HTTP %d, status %q, %d variables; want 200, Success, 1", resp.status, got.Status, len(got.Variables))
				}
			},
		},
		{
			name:   "error rate 1 answers 500",
			faults: sampleextension.Faults{ErrorRate: 1},
			path:   discoverVariablesPath,
			check: func(t *testing.T, resp response, err error) {
				if err != nil || resp.status != http.StatusInternalServerError {
					t.Errorf("HTTP %d, err %v; want 500", resp.status, err)
				}
			},
		},
		{
			name:   "failure rate 1 answers status Failure of the right kind",
			faults: sampleextension.Faults{FailureRate: 1},
			path:   discoverVariablesPath,
			check: func(t *testing.T, resp response, err error) {
				got := mustDecode[runtimehooksv1.DiscoverVariablesResponse](t, resp, err)
				if resp.status != http.StatusOK || got.APIVersion != hooksAPIVersion || got.Kind != "DiscoverVariablesResponse" ||
					got.Status != runtimehooksv1.ResponseStatusFailure || got.Message == "" || len(got.Variables) != 0 {
					t.Errorf("HTTP %d, %+v; want 200, DiscoverVariablesResponse, Failure with a message and no variables", resp.status, got)
				}
			},
		},
		{
			name:   "failure rate 1 fails Discovery too",
			faults: sampleextension.Faults{FailureRate: 1},
			path:   discoveryPath,
			check: func(t *testing.T, resp response, err error) {
				got := mustDecode[runtimehooksv1.DiscoveryResponse](t, resp, err)
				if got.Kind != "DiscoveryResponse" || got.Status != runtimehooksv1.ResponseStatusFailure || len(got.Handlers) != 0 {
					t.Errorf("%+v; want DiscoveryResponse, Failure, no handlers", got)
				}
			},
		},
		{
			name:   "raw body is answered verbatim",
			faults: sampleextension.Faults{RawBody: []byte(`{"kind":"WrongKind"`)},
			path:   generatePatchesPath,
			check: func(t *testing.T, resp response, err error) {
				if err != nil || resp.status != http.StatusOK || resp.contentType != "application/json" || string(resp.body) != `{"kind":"WrongKind"` {
					t.Errorf("HTTP %d (%s) %q, err %v; want 200 (application/json) with the raw body", resp.status, resp.contentType, resp.body, err)
				}
			},
		},
		{
			name:   "raw body is repeated",
			faults: sampleextension.Faults{RawBody: []byte("0123456789"), RawBodyRepeat: 300_000},
			path:   validateTopologyPath,
			check: func(t *testing.T, resp response, err error) {
				if err != nil || resp.status != http.StatusOK || !bytes.Equal(resp.body, bytes.Repeat([]byte("0123456789"), 300_000)) {
					t.Errorf("HTTP %d, %d bytes, err %v; want 200 with 3000000 bytes", resp.status, len(resp.body), err)
				}
			},
		},
		{
			name:   "empty raw body is an empty answer",
			faults: sampleextension.Faults{RawBody: []byte{}},
			path:   discoveryPath,
			check: func(t *testing.T, resp response, err error) {
				if err != nil || resp.status != http.StatusOK || len(resp.body) != 0 {
					t.Errorf("HTTP %d %q, err %v; want 200 with no body", resp.status, resp.body, err)
				}
			},
		},
		{
			name:   "rated faults come before the raw body",
			faults: sampleextension.Faults{FailureRate: 1, RawBody: []byte("raw")},
			path:   discoverVariablesPath,
			check: func(t *testing.T, resp response, err error) {
				if got := mustDecode[runtimehooksv1.DiscoverVariablesResponse](t, resp, err); got.Status != runtimehooksv1.ResponseStatusFailure {
					t.Errorf("status %q, want Failure", got.Status)
				}
			},
		},
		{
			name:   "drop rate 1 closes the connection without an answer",
			faults: sampleextension.Faults{DropRate: 1, ErrorRate: 1},
			path:   discoverVariablesPath,
			check: func(t *testing.T, resp response, err error) {
				if err == nil {
					t.Fatalf("got HTTP %d %q, want a client error", resp.status, resp.body)
				}
				if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
					t.Errorf("error %v is a timeout, want a closed connection", err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sampleextension.New(sampleextension.Options{
				Variables: map[string][]clusterv1.ClusterClassVariable{"discover-variables": stringVariables("region")},
			})
			url, client := extension(t, s)
			s.SetFaults("", tt.faults)

			resp, err := post(client, url, tt.path, hookRequest(t, requestKinds[tt.path]))
			tt.check(t, resp, err)
			if got := s.Total(); got != 1 {
				t.Errorf("Total() = %d, want the faulted call counted once", got)
			}
		})
	}
}

// mustDecode decodes a successful call's body.
func mustDecode[T any](t *testing.T, resp response, err error) T {
	t.Helper()
	if err != nil {
		t.Fatalf("call failed: %v", err)
	}
	return decode[T](t, resp)
}

func TestServer_MostSpecificFaultTargetWins(t *testing.T) {
	fail := sampleextension.Faults{ErrorRate: 1}
	dv2Path := "/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovervariables/dv-2"
	paths := []string{discoveryPath, discoverVariablesPath, dv2Path, generatePatchesPath}

	tests := []struct {
		name   string
		faults map[string]sampleextension.Faults
		want   []int // HTTP status per entry of paths
	}{
		{
			name:   "global applies to every call, Discovery included",
			faults: map[string]sampleextension.Faults{"": fail},
			want:   []int{500, 500, 500, 500},
		},
		{
			name:   "zero faults for a hook exempt it from the global ones",
			faults: map[string]sampleextension.Faults{"": fail, "Discovery": {}},
			want:   []int{200, 500, 500, 500},
		},
		{
			name:   "hook applies to all its handlers only",
			faults: map[string]sampleextension.Faults{"DiscoverVariables": fail},
			want:   []int{200, 500, 500, 200},
		},
		{
			name:   "handler overrides its hook",
			faults: map[string]sampleextension.Faults{"DiscoverVariables": fail, "DiscoverVariables/discover-variables": {}},
			want:   []int{200, 200, 500, 200},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			handlers := append(sampleextension.DefaultHandlers(), runtimehooksv1.ExtensionHandler{
				Name:        "dv-2",
				RequestHook: runtimehooksv1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "DiscoverVariables"},
			})
			s := sampleextension.New(sampleextension.Options{Handlers: handlers})
			url, client := extension(t, s)
			for target, f := range tt.faults {
				s.SetFaults(target, f)
			}
			statuses := func() []int {
				var got []int
				for _, path := range paths {
					kind := requestKinds[path]
					if path == dv2Path {
						kind = "DiscoverVariablesRequest"
					}
					got = append(got, callHookAt(t, client, url, path, kind).status)
				}
				return got
			}
			if got := statuses(); !slices.Equal(got, tt.want) {
				t.Errorf("statuses for %v are %v, want %v", paths, got, tt.want)
			}
			s.ResetFaults()
			if got := statuses(); !slices.Equal(got, []int{200, 200, 200, 200}) {
				t.Errorf("after ResetFaults statuses are %v, want all 200", got)
			}
		})
	}
}

func TestServer_DelayFaultDelaysTheAnswer(t *testing.T) {
	const delay = 300 * time.Millisecond
	s := sampleextension.New(sampleextension.Options{})
	url, client := extension(t, s)
	s.SetFaults("DiscoverVariables", sampleextension.Faults{Delay: delay})

	start := time.Now()
	resp := callHook(t, client, url, discoverVariablesPath)
	elapsed := time.Since(start)
	if resp.status != http.StatusOK {
		t.Fatalf("HTTP %d, want 200", resp.status)
	}
	if elapsed < delay {
		t.Errorf("answered after %s, want at least %s", elapsed, delay)
	}
}

func TestServer_DelayFaultEndsWhenTheClientGivesUp(t *testing.T) {
	s := sampleextension.New(sampleextension.Options{})
	url, caPEM, stop, err := sampleextension.StartTLS(s)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	s.SetFaults("", sampleextension.Faults{Delay: time.Hour})

	_, err = post(trustingClient(t, caPEM, 200*time.Millisecond), url, discoveryPath, []byte("{}"))
	if ne := net.Error(nil); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("error %v, want a client timeout", err)
	}
	assertStopsWithin(t, stop, 10*time.Second)
}

func TestServer_TimeoutFaultHangsUntilTheClientGivesUp(t *testing.T) {
	const clientTimeout = 300 * time.Millisecond
	s := sampleextension.New(sampleextension.Options{})
	url, caPEM, stop, err := sampleextension.StartTLS(s)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	s.SetFaults("GeneratePatches", sampleextension.Faults{TimeoutRate: 1})
	client := trustingClient(t, caPEM, clientTimeout)

	start := time.Now()
	resp, err := post(client, url, generatePatchesPath, hookRequest(t, "GeneratePatchesRequest"))
	elapsed := time.Since(start)
	if ne := net.Error(nil); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("HTTP %d, error %v; want a client timeout", resp.status, err)
	}
	if elapsed < clientTimeout {
		t.Errorf("gave up after %s, before the client timeout %s", elapsed, clientTimeout)
	}
	if got := s.Calls()["GeneratePatches/generate-patches"]; got != 1 {
		t.Errorf("counted %d calls, want 1", got)
	}
	// Other hooks are unaffected.
	if resp := callHook(t, client, url, validateTopologyPath); resp.status != http.StatusOK {
		t.Errorf("ValidateTopology: HTTP %d, want 200", resp.status)
	}
	// The hanging handler saw the client go, so nothing holds the shutdown up.
	assertStopsWithin(t, stop, 10*time.Second)
}

// assertStopsWithin fails the test if stop takes longer than limit.
func assertStopsWithin(t *testing.T, stop func(), limit time.Duration) {
	t.Helper()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		stop()
	}()
	select {
	case <-stopped:
	case <-time.After(limit):
		t.Fatalf("stop did not return within %s", limit)
	}
}

func TestServer_SameSeedGivesTheSameFaults(t *testing.T) {
	sequence := func(seed uint64) []int {
		s := sampleextension.New(sampleextension.Options{Seed: seed})
		s.SetFaults("", sampleextension.Faults{ErrorRate: 0.5})
		var statuses []int
		for range 64 {
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, discoveryPath, strings.NewReader("{}")))
			statuses = append(statuses, rec.Code)
		}
		return statuses
	}

	first, again, other := sequence(7), sequence(7), sequence(8)
	if !slices.Equal(first, again) {
		t.Errorf("seed 7 gave %v, then %v", first, again)
	}
	if !slices.Contains(first, http.StatusOK) || !slices.Contains(first, http.StatusInternalServerError) {
		t.Errorf("error rate 0.5 gave %v, want both 200 and 500", first)
	}
	if slices.Equal(first, other) {
		t.Errorf("seeds 7 and 8 gave the same faults %v", first)
	}
}

func TestFaults_JSONTakesDurationStringsOrNanoseconds(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		want    sampleextension.Faults
		wantErr string
	}{
		{name: "duration string", json: `{"delay":"250ms","errorRate":0.1}`, want: sampleextension.Faults{Delay: 250 * time.Millisecond, ErrorRate: 0.1}},
		{name: "nanoseconds", json: `{"delay":250000000}`, want: sampleextension.Faults{Delay: 250 * time.Millisecond}},
		{name: "every knob", json: `{"delay":"1s","errorRate":0.1,"timeoutRate":0.2,"dropRate":0.3,"failureRate":0.4,"rawBody":"not json","rawBodyRepeat":3}`,
			want: sampleextension.Faults{Delay: time.Second, ErrorRate: 0.1, TimeoutRate: 0.2, DropRate: 0.3, FailureRate: 0.4, RawBody: []byte("not json"), RawBodyRepeat: 3}},
		{name: "empty raw body is set", json: `{"rawBody":""}`, want: sampleextension.Faults{RawBody: []byte{}}},
		{name: "empty object is no faults", json: `{}`, want: sampleextension.Faults{}},
		{name: "bad duration", json: `{"delay":"soon"}`, wantErr: "soon"},
		{name: "fractional nanoseconds", json: `{"delay":1.5}`, wantErr: "nanoseconds"},
		{name: "misspelt knob", json: `{"errorRat":1}`, wantErr: "errorRat"},
		{name: "not an object", json: `[]`, wantErr: "decode faults"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got sampleextension.Faults
			err := json.Unmarshal([]byte(tt.json), &got)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			assertFaultsEqual(t, got, tt.want)

			// What MarshalJSON writes reads back the same.
			out, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var back sampleextension.Faults
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatalf("read back %s: %v", out, err)
			}
			assertFaultsEqual(t, back, tt.want)
		})
	}
}

// assertFaultsEqual compares Faults, telling a nil RawBody from an empty one.
func assertFaultsEqual(t *testing.T, got, want sampleextension.Faults) {
	t.Helper()
	// reflect.DeepEqual tells a nil RawBody from an empty one, as Faults does.
	if !reflect.DeepEqual(got, want) {
		t.Errorf("faults %+v (raw body nil: %t), want %+v (raw body nil: %t)", got, got.RawBody == nil, want, want.RawBody == nil)
	}
}

func TestFaults_ValidateRejectsRatesOutsideZeroToOneAndNegatives(t *testing.T) {
	tests := []struct {
		name    string
		faults  sampleextension.Faults
		wantErr string
	}{
		{name: "zero", faults: sampleextension.Faults{}},
		{name: "bounds", faults: sampleextension.Faults{ErrorRate: 1, TimeoutRate: 0, DropRate: 1, FailureRate: 1, Delay: time.Second, RawBodyRepeat: 2}},
		{name: "error rate above 1", faults: sampleextension.Faults{ErrorRate: 1.5}, wantErr: "errorRate"},
		{name: "negative drop rate", faults: sampleextension.Faults{DropRate: -0.1}, wantErr: "dropRate"},
		{name: "negative delay", faults: sampleextension.Faults{Delay: -time.Second}, wantErr: "delay"},
		{name: "negative repeat", faults: sampleextension.Faults{RawBodyRepeat: -1}, wantErr: "rawBodyRepeat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.faults.Validate()
			if tt.wantErr == "" && err != nil {
				t.Errorf("Validate() = %v, want nil", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Validate() = %v, want an error mentioning %s", err, tt.wantErr)
			}
		})
	}
}

func TestServe_EndsHangingCallsOnShutdown(t *testing.T) {
	s := sampleextension.New(sampleextension.Options{})
	s.SetFaults("", sampleextension.Faults{TimeoutRate: 1})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() {
		// A long grace period: Serve can only return quickly if it ends the hang.
		served <- sampleextension.Serve(ctx, l, s, sampleextension.ServeOptions{ShutdownTimeout: time.Minute})
	}()

	called := make(chan error, 1)
	go func() {
		resp, err := http.Post("http://"+l.Addr().String()+discoveryPath, "application/json", strings.NewReader("{}"))
		if err == nil {
			resp.Body.Close()
			err = errors.New(resp.Status)
		}
		called <- err
	}()
	polltest.Eventually(t, 10*time.Second, "the call reaches the handler", func() (bool, string) {
		return s.Total() == 1, fmt.Sprintf("%d calls", s.Total())
	})
	cancel()

	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve() = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return within 10s of its context ending")
	}
	select {
	case err := <-called:
		// No answer at all: an empty 200 would pass for a success.
		if err == nil || strings.Contains(err.Error(), "200") {
			t.Errorf("hanging call ended with %v, want a connection error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("hanging call did not end within 10s of shutdown")
	}
}
