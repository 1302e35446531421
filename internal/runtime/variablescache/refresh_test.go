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

package variablescache

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// extension answers what its answer field holds, counting calls.
type extension struct {
	answer atomic.Int64
	fail   atomic.Bool
	calls  atomic.Int64
}

func (e *extension) call(context.Context) (int, error) {
	e.calls.Add(1)
	if e.fail.Load() {
		return 0, errors.New("down")
	}
	return int(e.answer.Load()), nil
}

// clocked is a cache on a clock the test moves, recording whom it tells.
type clocked struct {
	*Cache[int]
	now  time.Time
	told [][]types.NamespacedName
}

func newClocked(opts Options) *clocked {
	c := &clocked{Cache: New[int](opts), now: time.Now()}
	c.Cache.now = func() time.Time { return c.now }
	c.SetOnChange(func(users []types.NamespacedName) { c.told = append(c.told, users) })
	return c
}

func intsEqual(a, b any) bool { return a == b }

// Users of the cache, ClusterClasses.
var (
	userA = types.NamespacedName{Namespace: "ns", Name: "a"}
	userB = types.NamespacedName{Namespace: "ns", Name: "b"}
	userC = types.NamespacedName{Namespace: "ns", Name: "c"}
	userD = types.NamespacedName{Namespace: "ns", Name: "d"}
)

func TestRefresh_AsksOncePerDistinctRequestInUseAndTellsOnlyItsUsersOfAChange(t *testing.T) {
	c := newClocked(Options{MaxAge: time.Minute, Equal: intsEqual})
	ctx := context.Background()

	shared, alone, unused := &extension{}, &extension{}, &extension{}
	shared.answer.Store(1)
	for _, user := range []types.NamespacedName{userA, userB, userC} {
		_, _, _ = c.GetFor(ctx, user, "shared", "fp", nil, shared.call)
	}
	_, _, _ = c.GetFor(ctx, userD, "alone", "fp", map[string]string{"k": "v"}, alone.call)
	_, _, _ = c.GetFor(ctx, nobody, "unused", "fp", nil, unused.call)
	if shared.calls.Load() != 1 {
		t.Fatalf("three users of one request made %d calls", shared.calls.Load())
	}

	if got := refresh(ctx, c.Cache); len(got) != 0 {
		t.Errorf("refresh before max age: %v", got)
	}
	c.now = c.now.Add(61 * time.Second)
	shared.answer.Store(2) // a rollout behind the same registration
	got := refresh(ctx, c.Cache)
	if want := map[RefreshOutcome]int{RefreshChanged: 1, RefreshUnchanged: 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("outcomes %v, want %v", got, want)
	}
	if shared.calls.Load() != 2 || alone.calls.Load() != 2 || unused.calls.Load() != 1 {
		t.Errorf("calls: shared %d, alone %d, unused %d; want 2, 2, 1", shared.calls.Load(), alone.calls.Load(), unused.calls.Load())
	}
	if want := [][]types.NamespacedName{{userA, userB, userC}}; !reflect.DeepEqual(c.told, want) {
		t.Errorf("told %v, want %v", c.told, want)
	}
	if v, outcome, _ := c.GetFor(ctx, userA, "shared", "fp", nil, shared.call); v != 2 || outcome != Hit {
		t.Errorf("after the refresh: %d (%s), want the new answer from the cache", v, outcome)
	}

	// Renewed: nothing is due until another max age has passed.
	c.told = nil
	if got := refresh(ctx, c.Cache); len(got) != 0 {
		t.Errorf("refresh right after a refresh: %v", got)
	}
	// A released user is no longer told, and an answer without users is
	// no longer asked for.
	for _, user := range []types.NamespacedName{userA, userB, userC} {
		c.Release(user)
	}
	c.now = c.now.Add(61 * time.Second)
	shared.answer.Store(3)
	if got := refresh(ctx, c.Cache); !reflect.DeepEqual(got, map[RefreshOutcome]int{RefreshUnchanged: 1}) {
		t.Errorf("outcomes %v, want alone's refresh only", got)
	}
	if shared.calls.Load() != 2 || len(c.told) != 0 {
		t.Errorf("an answer nobody uses was asked for (%d calls) or told %v", shared.calls.Load(), c.told)
	}
}

func TestRefresh_AFailureTellsTheUsersAndAnswersThemWithTheError(t *testing.T) {
	c := newClocked(Options{MaxAge: time.Minute})
	ctx := context.Background()
	e := &extension{}
	_, _, _ = c.GetFor(ctx, userA, "h", "fp", nil, e.call)

	c.now = c.now.Add(61 * time.Second)
	e.fail.Store(true)
	if got := refresh(ctx, c.Cache); !reflect.DeepEqual(got, map[RefreshOutcome]int{RefreshFailed: 1}) {
		t.Errorf("outcomes %v", got)
	}
	if !reflect.DeepEqual(c.told, [][]types.NamespacedName{{userA}}) {
		t.Errorf("told %v", c.told)
	}
	if _, outcome, err := c.GetFor(ctx, userA, "h", "fp", nil, e.call); err == nil || outcome != FailureShared {
		t.Errorf("the user's next reconcile got %s, %v; want the refresh's failure", outcome, err)
	}
	if e.calls.Load() != 2 {
		t.Errorf("%d calls, want the first and the refresh", e.calls.Load())
	}
}

func TestRefresh_ARecoveryTellsTheUsersTheFailureWasToldTo(t *testing.T) {
	c := newClocked(Options{MaxAge: time.Minute})
	ctx := context.Background()
	e := &extension{}
	for _, user := range []types.NamespacedName{userA, userB} {
		_, _, _ = c.GetFor(ctx, user, "h", "fp", nil, e.call)
	}
	c.now = c.now.Add(61 * time.Second)
	e.fail.Store(true)
	refresh(ctx, c.Cache)
	// The extension recovers; one user's retry after the backoff succeeds:
	// the other, still showing the failure, must hear of it too.
	e.fail.Store(false)
	c.now = c.now.Add(time.Minute)
	c.told = nil
	if _, outcome, err := c.GetFor(ctx, userA, "h", "fp", nil, e.call); err != nil || outcome != Called {
		t.Fatalf("retry after the backoff: %s, %v", outcome, err)
	}
	if want := [][]types.NamespacedName{{userA, userB}}; !reflect.DeepEqual(c.told, want) {
		t.Errorf("told %v on recovery, want %v", c.told, want)
	}
}

func TestRefresh_AnAnswerOfAReplacedRegistrationDoesNotComeBack(t *testing.T) {
	c := newClocked(Options{MaxAge: time.Minute, Equal: intsEqual})
	ctx := context.Background()
	release := make(chan struct{})
	started := make(chan struct{})
	old := func(context.Context) (int, error) { return 1, nil }
	_, _, _ = c.GetFor(ctx, userA, "h", "fp1", nil, old)
	slowOld := func(context.Context) (int, error) {
		close(started)
		<-release
		return 1, nil
	}
	// The refresh of fp1 is in flight when the registration changes.
	c.mu.Lock()
	c.handlers["h"].bySettings["{}"].call = slowOld
	c.mu.Unlock()
	c.now = c.now.Add(61 * time.Second)
	done := make(chan struct{})
	go func() { refresh(ctx, c.Cache); close(done) }()
	<-started
	c.Forget("h")
	if v, _, _ := c.GetFor(ctx, userA, "h", "fp2", nil, func(context.Context) (int, error) { return 2, nil }); v != 2 {
		t.Fatalf("fp2 answered %d", v)
	}
	close(release)
	<-done
	if v, outcome, _ := c.GetFor(ctx, userA, "h", "fp2", nil, func(context.Context) (int, error) { return 3, nil }); v != 2 || outcome != Hit {
		t.Errorf("after the late refresh of fp1: %d (%s), want fp2's answer from the cache", v, outcome)
	}
}

// refresh runs one pass of RefreshEach and returns how many answers found
// each outcome.
func refresh[V any](ctx context.Context, c *Cache[V]) map[RefreshOutcome]int {
	outcomes := map[RefreshOutcome]int{}
	c.RefreshEach(ctx, func(o RefreshOutcome) { outcomes[o]++ })
	return outcomes
}
