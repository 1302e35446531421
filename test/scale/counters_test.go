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
	"reflect"
	"testing"
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
