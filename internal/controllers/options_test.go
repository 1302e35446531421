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

package controllers

import (
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// An unset setting is Cluster API's default, never a mode of its own: a
// wiring that forgets one runs as the drop-in does.
func TestOptions_UnsetSettingsAreClusterAPIsDefaults(t *testing.T) {
	type settings struct {
		maxAge           time.Duration
		classes, configs int
	}
	of := func(o Options) settings {
		return settings{o.VariablesCacheMaxAge, o.ClusterClassConcurrency, o.ExtensionConfigConcurrency}
	}
	want := settings{userfacing.DefaultVariablesCacheMaxAge, userfacing.DefaultClusterClassConcurrency, userfacing.DefaultExtensionConfigConcurrency}
	if got := of(Options{}.withDefaults()); got != want {
		t.Errorf("Options{}.withDefaults() = %+v, want %+v", got, want)
	}
	set := Options{VariablesCacheMaxAge: 2 * time.Second, ClusterClassConcurrency: 1, ExtensionConfigConcurrency: 3}
	if got := of(set.withDefaults()); got != of(set) {
		t.Errorf("withDefaults changed settings that were set: %+v, want %+v", got, of(set))
	}
}
