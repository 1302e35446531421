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

package nodehost

import (
	"strings"
	"testing"
)

// A machine without the node's commands is told, at once, each command
// and the Debian package that has it.
func TestPreflight_NamesEveryMissingCommandAndItsPackage(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := Preflight("n1")
	if err == nil {
		t.Fatal("Preflight passed with an empty PATH")
	}
	for _, want := range []string{"cannot run node n1", "the command runc (Debian package runc", "the command iptables (Debian package iptables", "the command nsenter (Debian package util-linux"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Preflight: %v\nwant it to say %q", err, want)
		}
	}
}

// Too little free space is refused with what there is and what is needed.
func TestCheckFreeSpace_RefusesAFullDiskNamingTheSizes(t *testing.T) {
	err := CheckFreeSpace(t.TempDir()+"/not/yet/made", 1<<62)
	if err == nil || !strings.Contains(err.Error(), "MiB free; the node needs 4398046511104 MiB") {
		t.Errorf("CheckFreeSpace: %v, want the sizes named", err)
	}
	if err := CheckFreeSpace(t.TempDir(), 1); err != nil {
		t.Errorf("CheckFreeSpace of one byte: %v", err)
	}
}
