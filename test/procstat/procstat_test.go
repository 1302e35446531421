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

package procstat

import (
	"math"
	"os"
	"strings"
	"testing"
)

func TestParseStatCPUSeconds_CountsFromTheCommandsLastParenthesis(t *testing.T) {
	tests := []struct {
		name, stat string
		want       float64
		wantErr    bool
	}{
		{name: "plain", stat: "42 (core-manager) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 12 0 100 0 0", want: 3},
		{name: "a command with spaces and parentheses", stat: "42 (a) b (c)) R 1 42 42 0 -1 0 0 0 0 0 1 2 0 0", want: 0.03},
		{name: "no command", stat: "42 core-manager S", wantErr: true},
		{name: "too short", stat: "42 (x) S 1 2", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStatCPUSeconds(tt.stat)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ParseStatCPUSeconds = %v, %v; want %v (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestParseStatusBytes_ReadsTheNamedFieldsKilobytesAsBytes(t *testing.T) {
	const status = "Name:\tcore-manager\nVmPeak:\t 900 kB\nVmHWM:\t  2048 kB\nVmRSS:\t 1024 kB\nVmRSSx:\t 7 kB\n"
	tests := []struct {
		name, status, field string
		want                int64
		wantErr             bool
	}{
		{name: "peak", status: status, field: ResidentPeak, want: 2048 * 1024},
		{name: "now", status: status, field: ResidentNow, want: 1024 * 1024},
		{name: "missing", status: "Name:\tx\n", field: ResidentPeak, wantErr: true},
		{name: "not in kB", status: "VmHWM:\t 3 MB\n", field: ResidentPeak, wantErr: true},
		{name: "not a number", status: "VmRSS:\t x kB\n", field: ResidentNow, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStatusBytes(tt.status, tt.field)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ParseStatusBytes(%s) = %d, %v; want %d (error %v)", tt.field, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestParseHostCPUSeconds_CountsIdleAndIOWaitAsNotBusy(t *testing.T) {
	for _, tt := range []struct {
		name        string
		stat        string
		busy, total float64
		wantErr     bool
	}{
		{name: "first line", stat: "cpu  100 20 30 400 50 6 4 10 0 0\ncpu0 50 10 15 200 25 3 2 5 0 0\n", busy: 1.7, total: 6.2},
		{name: "no cpu line", stat: "intr 1 2 3\n", wantErr: true},
		{name: "too few fields", stat: "cpu 1 2 3\n", wantErr: true},
		{name: "not a number", stat: "cpu 1 2 3 x 5 6 7 8\n", wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			busy, total, err := ParseHostCPUSeconds(tt.stat)
			if (err != nil) != tt.wantErr || math.Abs(busy-tt.busy) > 1e-9 || math.Abs(total-tt.total) > 1e-9 {
				t.Errorf("ParseHostCPUSeconds = %v, %v, %v; want %v, %v (error %v)", busy, total, err, tt.busy, tt.total, tt.wantErr)
			}
		})
	}
}

func TestParseHostStealSeconds_ReadsTheEighthField(t *testing.T) {
	got, err := ParseHostStealSeconds("cpu  530367 0 61863 143635 619 0 4613 704 0 0\ncpu0 265405 0 29793 73328 103 0 1915 354 0 0\n")
	if err != nil || math.Abs(got-7.04) > 1e-9 {
		t.Errorf("ParseHostStealSeconds = %v, %v; want 7.04 s", got, err)
	}
	if _, err := ParseHostStealSeconds("cpu 1 2 3\n"); err == nil {
		t.Error("ParseHostStealSeconds took a cpu line of three fields")
	}
}

// The readers work on a live process: this test's own.
func TestReaders_ReadThisProcess(t *testing.T) {
	pid := os.Getpid()
	if _, err := CPUSeconds(pid); err != nil {
		t.Errorf("CPUSeconds: %v", err)
	}
	now, err := StatusBytes(pid, ResidentNow)
	if err != nil || now <= 0 {
		t.Errorf("StatusBytes(%s) = %d, %v; want > 0", ResidentNow, now, err)
	}
	peak, err := StatusBytes(pid, ResidentPeak)
	if err != nil || peak < now {
		t.Errorf("StatusBytes(%s) = %d, %v; want at least the resident set %d", ResidentPeak, peak, err, now)
	}
	if machine, err := Machine(); err != nil || !strings.Contains(machine, "CPUs") {
		t.Errorf("Machine() = %q, %v", machine, err)
	}
	if busy, total, err := HostCPUSeconds(); err != nil || busy <= 0 || total < busy {
		t.Errorf("HostCPUSeconds = %v, %v, %v; want 0 < busy <= total", busy, total, err)
	}
}
