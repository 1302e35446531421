package scale

import (
	"reflect"
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

func TestParseStatusHWM_ReadsKilobytesAsBytes(t *testing.T) {
	got, err := ParseStatusHWM("Name:\tcore-manager\nVmPeak:\t 900 kB\nVmHWM:\t  2048 kB\nVmRSS:\t 1024 kB\n")
	if err != nil || got != 2048*1024 {
		t.Errorf("ParseStatusHWM = %d, %v; want %d", got, err, 2048*1024)
	}
	if _, err := ParseStatusHWM("Name:\tx\n"); err == nil {
		t.Error("ParseStatusHWM without VmHWM: no error")
	}
}

func TestCountersSub_KeepsTheLaterPeakAndDropsUnchangedKeys(t *testing.T) {
	before := Counters{Requests: map[string]float64{"generatepatches": 10, "discovery": 1}, Reconciles: map[string]float64{"cluster": 5},
		APIRequests: 100, APIWrites: 10, CPUSeconds: 1.5, PeakRSSBytes: 100}
	after := Counters{Requests: map[string]float64{"generatepatches": 25, "discovery": 1, "validatetopology": 3}, Reconciles: map[string]float64{"cluster": 9},
		APIRequests: 150, APIWrites: 12, CPUSeconds: 4, PeakRSSBytes: 200}
	got := after.Sub(before)
	want := Counters{Requests: map[string]float64{"generatepatches": 15, "validatetopology": 3}, Reconciles: map[string]float64{"cluster": 4},
		APIRequests: 50, APIWrites: 2, CPUSeconds: 2.5, PeakRSSBytes: 200}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Sub = %+v, want %+v", got, want)
	}
}

func TestHookOfPath_NamesTheHookOfARuntimeSDKPath(t *testing.T) {
	for path, want := range map[string]string{
		"/hooks.runtime.cluster.x-k8s.io/v1alpha1/generatepatches/generate-patches.scale": "generatepatches",
		"/hooks.runtime.cluster.x-k8s.io/v1alpha1/discovery":                              "discovery",
		"/other": "/other",
	} {
		if got := HookOfPath(path); got != want {
			t.Errorf("HookOfPath(%q) = %q, want %q", path, got, want)
		}
	}
}
