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

package shutdownhang

import (
	"errors"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
)

// The frames HandOffStuck looks for are the ones the runtime prints for
// the priority queue the drop-in links: a live queue's hand-off, waiting
// for work, is seen and not counted as stuck.
func TestHandOffStuck_ReadsTheLinkedPriorityQueuesFrames(t *testing.T) {
	before := handOffs(goroutines())
	q := priorityqueue.New[string]("shutdownhang-test")
	defer q.ShutDown()
	polltest.Eventually(t, 10*time.Second, "the queue's hand-off is in the dump", func() (bool, string) {
		dump := goroutines()
		return handOffs(dump) > before && HandOffStuck(dump) == 0, "not yet"
	})
}

func TestHandOffStuck_CountsOnlyBlockedHandOffs(t *testing.T) {
	tests := []struct {
		name string
		dump string
		want int
	}{
		{name: "a blocked hand-off", want: 1, dump: "goroutine 7 [chan send, 2 minutes]:\n" +
			"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue.(*priorityqueue[...]).handleReadyItems.func1.1(...)\n" +
			"\t/x/priorityqueue.go:397\n" +
			"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue.(*priorityqueue[...]).handleReadyItems(...)\n"},
		{name: "a hand-off waiting for work", want: 0, dump: "goroutine 7 [select]:\n" +
			"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue.(*priorityqueue[...]).handleReadyItems(...)\n"},
		{name: "another goroutine sending", want: 0, dump: "goroutine 8 [chan send]:\nmain.produce()\n"},
		{name: "two blocked hand-offs", want: 2, dump: "goroutine 7 [chan send]:\n" +
			"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue.(*priorityqueue[...]).handleReadyItems.func1.1(...)\n\n" +
			"goroutine 9 [chan send]:\n" +
			"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue.(*priorityqueue[...]).handleReadyItems.func1.1(...)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HandOffStuck(tt.dump); got != tt.want {
				t.Errorf("HandOffStuck = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestDoneBlocked_CountsWorkersWaitingForTheLock(t *testing.T) {
	dump := "goroutine 12 [sync.Mutex.Lock, 1 minutes]:\n" +
		"sync.(*Mutex).Lock(...)\n" +
		"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue.(*priorityqueue[...]).Done(0xc0, {0x1, 0x2})\n\n" +
		"goroutine 13 [select]:\n" +
		"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue.(*priorityqueue[...]).GetWithPriority(...)\n"
	if got := DoneBlocked(dump); got != 1 {
		t.Errorf("DoneBlocked = %d, want 1", got)
	}
}

func TestCheck_FailsOnEveryOtherError(t *testing.T) {
	for _, err := range []error{
		errors.New("leader election lost"),
		// The manager's aggregate of the error it stopped on and the grace
		// period's: the first is a real failure.
		errors.New("[leader election lost, failed waiting for all runnables to end within grace period of 30s: context deadline exceeded]"),
		// The grace period alone, with no hung queue in the process.
		errors.New("failed waiting for all runnables to end within grace period of 30s: context deadline exceeded"),
	} {
		recorder := &failRecorder{TB: t}
		Watch().Check(recorder, err)
		if !recorder.failed {
			t.Errorf("Check let %q pass", err)
		}
	}
}

type failRecorder struct {
	testing.TB
	failed bool
}

func (r *failRecorder) Errorf(string, ...any) { r.failed = true }
func (r *failRecorder) Helper()               {}
