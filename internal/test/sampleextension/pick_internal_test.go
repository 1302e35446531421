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

package sampleextension

import (
	"math"
	"testing"
)

func TestFaultsPick_RatesOfZeroAndOneAreExact(t *testing.T) {
	// The extremes of what a draw from [0, 1) can be, and the middle.
	draws := []float64{0, 0.5, math.Nextafter(1, 0)}
	tests := []struct {
		name   string
		faults Faults
		want   fault
	}{
		{name: "no rates", faults: Faults{}, want: faultNone},
		{name: "drop 1", faults: Faults{DropRate: 1}, want: faultDrop},
		{name: "timeout 1", faults: Faults{TimeoutRate: 1}, want: faultHang},
		{name: "error 1", faults: Faults{ErrorRate: 1}, want: faultError},
		{name: "failure 1", faults: Faults{FailureRate: 1}, want: faultFailure},
		{name: "drop comes first", faults: Faults{DropRate: 1, TimeoutRate: 1, ErrorRate: 1, FailureRate: 1}, want: faultDrop},
		{name: "timeout before error", faults: Faults{TimeoutRate: 1, ErrorRate: 1}, want: faultHang},
		{name: "error before failure", faults: Faults{ErrorRate: 1, FailureRate: 1}, want: faultError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, u := range draws {
				if got := tt.faults.pick(u); got != tt.want {
					t.Errorf("pick(%v) = %v, want %v", u, got, tt.want)
				}
			}
		})
	}
}

func TestFaultsPick_SharesFollowTheRates(t *testing.T) {
	f := Faults{DropRate: 0.1, TimeoutRate: 0.2, ErrorRate: 0.3, FailureRate: 0.25}
	tests := []struct {
		u    float64
		want fault
	}{
		{u: 0.05, want: faultDrop},
		{u: 0.15, want: faultHang},
		{u: 0.45, want: faultError},
		{u: 0.7, want: faultFailure},
		{u: 0.9, want: faultNone},
	}
	for _, tt := range tests {
		if got := f.pick(tt.u); got != tt.want {
			t.Errorf("pick(%v) = %v, want %v", tt.u, got, tt.want)
		}
	}
}
