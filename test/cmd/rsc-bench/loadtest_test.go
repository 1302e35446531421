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
