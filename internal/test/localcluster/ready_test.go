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
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// okFrom answers 503 until the n-th request, and 200 from then on.
func okFrom(n int64) func(int64) int {
	return func(request int64) int {
		if request < n {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	}
}

func TestWaitReady_ReturnsOnReadyOnAnEndedProcessOrAfterTheTimeout(t *testing.T) {
	ended := errors.New("etcd exited during start-up")
	tests := []struct {
		name string
		// status answers the n-th request (from 1).
		status func(n int64) int
		// endedAfter is how many polls the process lives; 0 means for ever.
		endedAfter int64
		timeout    time.Duration
		// wantRequests is how many requests it takes to be ready.
		wantRequests int64
		// wantErr is nil for ready, or what the error must contain.
		wantErr []string
		wantIs  error
	}{
		{name: "ready at once", status: okFrom(1), timeout: time.Minute, wantRequests: 1},
		{name: "ready on the third request", status: okFrom(3), timeout: time.Minute, wantRequests: 3},
		{
			name: "process ends before it is ready", status: func(int64) int { return http.StatusServiceUnavailable },
			endedAfter: 2, timeout: time.Minute, wantIs: ended,
		},
		{
			name: "never ready", status: func(int64) int { return http.StatusServiceUnavailable },
			timeout: 300 * time.Millisecond,
			// The last answer is not asserted: the deadline can cut the
			// request in flight.
			wantErr: []string{"kube-apiserver not ready after 300ms", "see /logs/kube-apiserver.log"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var requests, polls atomic.Int64
			server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tt.status(requests.Add(1)))
			}))
			defer server.Close()
			err := WaitReady(context.Background(), Readiness{
				URL: server.URL + "/readyz", Client: server.Client(), Timeout: tt.timeout,
				Name: "kube-apiserver", LogPath: "/logs/kube-apiserver.log",
				Ended: func() error {
					if n := polls.Add(1); tt.endedAfter != 0 && n > tt.endedAfter {
						return ended
					}
					return nil
				},
			})
			switch {
			case tt.wantIs != nil:
				if !errors.Is(err, tt.wantIs) {
					t.Fatalf("got %v, want %v", err, tt.wantIs)
				}
				if got := requests.Load(); got != tt.endedAfter {
					t.Errorf("%d requests, want %d: none after the process ended", got, tt.endedAfter)
				}
			case tt.wantErr != nil:
				if err == nil {
					t.Fatal("ready, want an error")
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not mention %q", err, want)
					}
				}
			case err != nil:
				t.Fatalf("not ready: %v", err)
			case requests.Load() != tt.wantRequests:
				t.Errorf("ready after %d requests, want %d", requests.Load(), tt.wantRequests)
			}
		})
	}
}
