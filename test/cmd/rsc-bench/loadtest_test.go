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
	"slices"
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

func TestComparedManagers_NamesEachManagerOnceInOrder(t *testing.T) {
	for _, tc := range []struct {
		compare string
		want    []string
		wantErr bool
	}{
		{compare: "", want: nil},
		{compare: "capi", want: []string{loadtest.NameCAPI}},
		{compare: "capi, patched", want: []string{loadtest.NameCAPI, loadtest.NamePatched}},
		{compare: "patched,capi", want: []string{loadtest.NamePatched, loadtest.NameCAPI}},
		{compare: "capi,capi", wantErr: true},
		{compare: "standalone", wantErr: true},
	} {
		got, err := loadtestOptions{compare: tc.compare}.comparedManagers()
		if (err != nil) != tc.wantErr {
			t.Errorf("--compare %q: error %v, want error %t", tc.compare, err, tc.wantErr)
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("--compare %q: %q, want %q", tc.compare, got, tc.want)
		}
	}
}
