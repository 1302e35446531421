package main

import (
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/loadtest"
)

func TestIdlePeriodFor_OnlyTheLastScenarioWaits(t *testing.T) {
	o := loadtestOptions{idlePeriod: time.Minute}
	if got := o.idlePeriodFor(0, 2); got != 0 {
		t.Errorf("first of two scenarios idles %s, want none", got)
	}
	if got := o.idlePeriodFor(1, 2); got != time.Minute {
		t.Errorf("last scenario idles %s, want 1m", got)
	}
}

func TestDiscoveryOptimum_TheDropInIsHeldToClusterAPIsTheStandaloneToItsOwn(t *testing.T) {
	tests := []struct {
		dropIn bool
		want   loadtest.DiscoveryOptimum
	}{
		{dropIn: false, want: loadtest.DiscoverWhenAnswerCanChange},
		{dropIn: true, want: loadtest.DiscoverOnEveryChange},
	}
	for _, tt := range tests {
		if got := (loadtestOptions{dropIn: tt.dropIn}).discoveryOptimum(); got != tt.want {
			t.Errorf("--drop-in=%t: optimum %q, want %q", tt.dropIn, got, tt.want)
		}
	}
}
