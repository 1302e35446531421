package main

import (
	"testing"
	"time"
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
