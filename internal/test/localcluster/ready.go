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
	"fmt"
	"net/http"
	"time"
)

// Readiness is how WaitReady waits for a process that has just started.
type Readiness struct {
	// URL answers 200 OK once the process is ready.
	URL string
	// Client makes the requests; nil means http.DefaultClient.
	Client *http.Client
	// Timeout bounds the wait.
	Timeout time.Duration
	// Ended returns nil while the process runs, and once it has ended the
	// error WaitReady returns, saying how: a process that has gone is not
	// waited for.
	Ended func() error
	// Name and LogPath name the process and its log when it is not ready
	// in time.
	Name, LogPath string
}

// readyPoll is how often WaitReady asks.
const readyPoll = 100 * time.Millisecond

// WaitReady polls r.URL until it answers 200 OK, the process ends, or
// r.Timeout passes. Both the local control plane and the tools' manager
// processes start this way.
func WaitReady(ctx context.Context, r Readiness) error {
	client := r.Client
	if client == nil {
		client = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	ticker := time.NewTicker(readyPoll)
	defer ticker.Stop()
	var lastErr error
	for {
		if err := r.Ended(); err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			lastErr = fmt.Errorf("%s answered %s", r.URL, resp.Status)
		} else {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready after %s (last: %v); see %s", r.Name, r.Timeout, lastErr, r.LogPath)
		case <-ticker.C:
		}
	}
}
