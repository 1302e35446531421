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

package registry

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestGate_WarmedUpOnlyAfterOpen(t *testing.T) {
	g := New().Gate()
	if g.IsOpen(WarmedUp) {
		t.Fatal("new registry is warmed up")
	}
	select {
	case <-g.Done(WarmedUp):
		t.Fatal("WarmedUp open before Open(WarmedUp)")
	default:
	}
	g.Open(WarmedUp)
	g.Open(WarmedUp)
	if !g.IsOpen(WarmedUp) {
		t.Fatal("not warmed up after Open(WarmedUp)")
	}
	<-g.Done(WarmedUp)
}

// After the rebuild as leader, calls wait for the first Discovery of each
// config that records no handlers, naming them, but never past the
// timeout; a list that failed is named until the rebuild is done.
func TestGate_ErrNamesWhatItWaitsFor(t *testing.T) {
	g := New().Gate()
	if err := g.Err(); !errors.Is(err, ErrNotCurrent) {
		t.Fatalf("a new registry: %v, want ErrNotCurrent", err)
	}
	refused := errors.New("forbidden")
	g.ListFailed(refused)
	if err := g.Err(); !errors.Is(err, refused) {
		t.Errorf("after a refused list: %v, want it named", err)
	}
	g.AwaitFirstDiscovery([]string{"b", "a"}, time.Hour)
	g.Open(Rebuilt)
	err := g.Err()
	if !errors.Is(err, ErrNotCurrent) || errors.Is(err, refused) || !strings.Contains(err.Error(), "a, b") {
		t.Errorf("while a and b await their first Discovery: %v", err)
	}
	g.Discovered("a")
	g.Discovered("unknown")
	if err := g.Err(); err == nil || strings.Contains(err.Error(), "a,") || !strings.Contains(err.Error(), "b") {
		t.Errorf("while b awaits its first Discovery: %v", err)
	}
	g.Discovered("b")
	if err := g.Err(); err != nil {
		t.Errorf("once every config was discovered: %v", err)
	}
	g.AwaitFirstDiscovery([]string{"c"}, -time.Second)
	if err := g.Err(); err != nil {
		t.Errorf("past the timeout: %v", err)
	}
}
