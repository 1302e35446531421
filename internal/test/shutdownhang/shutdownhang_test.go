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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HandOffStuck(tt.dump); got != tt.want {
				t.Errorf("HandOffStuck = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestCheck_FailsOnOtherErrors(t *testing.T) {
	recorder := &failRecorder{TB: t}
	Check(recorder, errors.New("leader election lost"))
	if !recorder.failed {
		t.Error("Check let an error that is no shutdown hang pass")
	}
}

type failRecorder struct {
	testing.TB
	failed bool
}

func (r *failRecorder) Errorf(string, ...any) { r.failed = true }
func (r *failRecorder) Helper()               {}
