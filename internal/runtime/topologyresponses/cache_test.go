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

package topologyresponses

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

var call = Call{Handler: "patch.ext", ExtensionConfig: "ext", Fingerprint: "fp"}

// clock is a settable time for expiry.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// patchesRequest has one item per holder name, each uid prefixed.
func patchesRequest(uidPrefix string, holders ...string) *runtimehooksv1.GeneratePatchesRequest {
	req := &runtimehooksv1.GeneratePatchesRequest{}
	for _, h := range holders {
		req.Items = append(req.Items, runtimehooksv1.GeneratePatchesRequestItem{
			UID:             types.UID(uidPrefix + h),
			HolderReference: runtimehooksv1.HolderReference{Kind: "MachineDeployment", Name: h, FieldPath: "spec.template.spec.infrastructureRef"},
			Object:          runtime.RawExtension{Raw: []byte(`{"spec":{"name":"` + h + `"}}`)},
		})
	}
	return req
}

// patchesFor answers one patch per item, naming its holder in the patch.
func patchesFor(req *runtimehooksv1.GeneratePatchesRequest) *runtimehooksv1.GeneratePatchesResponse {
	resp := &runtimehooksv1.GeneratePatchesResponse{}
	resp.Status = runtimehooksv1.ResponseStatusSuccess
	for _, item := range req.Items {
		resp.Items = append(resp.Items, runtimehooksv1.GeneratePatchesResponseItem{
			UID: item.UID, PatchType: runtimehooksv1.JSONPatchType,
			Patch: []byte(`[{"op":"add","path":"/spec/for","value":"` + item.HolderReference.Name + `"}]`),
		})
	}
	return resp
}

// missThenStore looks req up, expecting a miss, and stores the answer.
func missThenStore(t *testing.T, c *Cache, req *runtimehooksv1.GeneratePatchesRequest) {
	t.Helper()
	p, hit := c.Lookup(call, req, &runtimehooksv1.GeneratePatchesResponse{})
	if hit {
		t.Fatal("first lookup hit")
	}
	c.Store(p, patchesFor(req))
}

func TestCache_OffUnlessTheConfigOptedIn(t *testing.T) {
	c := New(Options{})
	req := patchesRequest("a-", "x")
	p, hit := c.Lookup(call, req, &runtimehooksv1.GeneratePatchesResponse{})
	c.Store(p, patchesFor(req))
	if _, hit2 := c.Lookup(call, req, &runtimehooksv1.GeneratePatchesResponse{}); hit || hit2 {
		t.Fatal("a config that did not opt in was answered from memory")
	}
	if n, _ := c.Len(); n != 0 {
		t.Fatalf("held %d answers for a config that did not opt in", n)
	}
}

func TestCache_HitMovesPatchesOntoTheNewItemsByHolder(t *testing.T) {
	c := New(Options{})
	c.SetMaxAge("ext", time.Hour)
	missThenStore(t, c, patchesRequest("old-", "x", "y", "z"))

	// Reissued: fresh uids, items in another order.
	again := patchesRequest("new-", "z", "x", "y")
	resp := &runtimehooksv1.GeneratePatchesResponse{}
	if _, hit := c.Lookup(call, again, resp); !hit {
		t.Fatal("a reissued request missed")
	}
	if len(resp.Items) != 3 {
		t.Fatalf("answer has %d patches, want 3", len(resp.Items))
	}
	for _, item := range resp.Items {
		// Each patch names its holder; its uid must be that holder's new one.
		var holder string
		// A patch of another shape leaves holder empty, and the check below fails.
		_, _ = fmt.Sscanf(string(item.Patch), `[{"op":"add","path":"/spec/for","value":"%1s`, &holder)
		if want := types.UID("new-" + holder); item.UID != want {
			t.Errorf("patch for %s carries uid %q, want %q", holder, item.UID, want)
		}
	}
	if resp.Status != runtimehooksv1.ResponseStatusSuccess {
		t.Errorf("status %q, want Success", resp.Status)
	}
}

func TestCache_KeepsItsOwnCopies(t *testing.T) {
	c := New(Options{})
	c.SetMaxAge("ext", time.Hour)
	req := patchesRequest("a-", "x")
	p, _ := c.Lookup(call, req, &runtimehooksv1.GeneratePatchesResponse{})
	answer := patchesFor(req)
	c.Store(p, answer)
	// Cluster API reuses and mutates the request and reads the answer.
	req.Items[0].UID = "mutated"
	answer.Items[0].Patch = []byte(`[]`)

	first := &runtimehooksv1.GeneratePatchesResponse{}
	if _, hit := c.Lookup(call, patchesRequest("b-", "x"), first); !hit {
		t.Fatal("miss")
	}
	first.Items[0].Patch[0] = '!'
	second := &runtimehooksv1.GeneratePatchesResponse{}
	c.Lookup(call, patchesRequest("c-", "x"), second)
	if got := string(second.Items[0].Patch); got != `[{"op":"add","path":"/spec/for","value":"x"}]` {
		t.Errorf("held answer changed to %s", got)
	}
	if second.Items[0].UID != "c-x" {
		t.Errorf("uid %q, want c-x", second.Items[0].UID)
	}
}

func TestCache_NeverKeeps(t *testing.T) {
	tests := []struct {
		name   string
		answer func(req *runtimehooksv1.GeneratePatchesRequest) *runtimehooksv1.GeneratePatchesResponse
	}{
		{"a Failure", func(req *runtimehooksv1.GeneratePatchesRequest) *runtimehooksv1.GeneratePatchesResponse {
			r := patchesFor(req)
			r.Status = runtimehooksv1.ResponseStatusFailure
			return r
		}},
		{"an answer without status", func(req *runtimehooksv1.GeneratePatchesRequest) *runtimehooksv1.GeneratePatchesResponse {
			r := patchesFor(req)
			r.Status = ""
			return r
		}},
		{"a patch for a uid the request does not hold", func(req *runtimehooksv1.GeneratePatchesRequest) *runtimehooksv1.GeneratePatchesResponse {
			r := patchesFor(req)
			r.Items[0].UID = "not-in-the-request"
			return r
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(Options{})
			c.SetMaxAge("ext", time.Hour)
			req := patchesRequest("a-", "x", "y")
			p, _ := c.Lookup(call, req, &runtimehooksv1.GeneratePatchesResponse{})
			c.Store(p, tt.answer(req))
			if n, _ := c.Len(); n != 0 {
				t.Fatalf("kept %s", tt.name)
			}
		})
	}
}

func TestCache_ExpiresAtTheMaxAgeInForceAtLookup(t *testing.T) {
	clk := &clock{now: time.Unix(1000, 0)}
	c := New(Options{Now: clk.Now})
	c.SetMaxAge("ext", 10*time.Minute)
	missThenStore(t, c, patchesRequest("a-", "x"))

	clk.Add(9 * time.Minute)
	if _, hit := c.Lookup(call, patchesRequest("b-", "x"), &runtimehooksv1.GeneratePatchesResponse{}); !hit {
		t.Fatal("missed within the max age")
	}
	// No store and no SetMaxAge in between: the lookup alone refuses it.
	clk.Add(2 * time.Minute)
	if _, hit := c.Lookup(call, patchesRequest("c-", "x"), &runtimehooksv1.GeneratePatchesResponse{}); hit {
		t.Fatal("hit past the max age")
	}
	if n, _ := c.Len(); n != 0 {
		t.Fatalf("an expired answer is still held (%d)", n)
	}
}

// checkBookkeeping fails unless every held answer is in its config's
// stored list once, the lists hold nothing else, and each entry knows its
// place in both lists.
func checkBookkeeping(t *testing.T, c *Cache) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	listed := 0
	for config, ages := range c.stored {
		if ages.Len() == 0 {
			t.Errorf("config %s keeps an empty stored list", config)
		}
		for el := ages.Front(); el != nil; el = el.Next() {
			e := el.Value.(*entry)
			if held, ok := c.entries[e.key]; !ok || held != e || e.config != config {
				t.Errorf("config %s lists an answer that is not held", config)
			}
			if e.age != el {
				t.Errorf("config %s lists an answer whose place in the list is elsewhere", config)
			}
			listed++
		}
	}
	for el := c.recent.Front(); el != nil; el = el.Next() {
		if el.Value.(*entry).used != el {
			t.Error("a recently used answer's place in that list is elsewhere")
		}
	}
	if listed != c.recent.Len() || listed != len(c.entries) {
		t.Errorf("%d answers listed by store time, %d held", listed, c.recent.Len())
	}
}

func TestCache_StoredOrderFollowsEveryRemoval(t *testing.T) {
	for _, tt := range []struct {
		name string
		do   func(t *testing.T, c *Cache, clk *clock) (wantHeld int)
	}{
		{"evicted at the bounds, then expired", func(t *testing.T, c *Cache, clk *clock) int {
			for i := range 4 {
				missThenStore(t, c, patchesRequest("a-", fmt.Sprintf("h%d", i)))
			}
			checkBookkeeping(t, c)
			clk.Add(11 * time.Minute)
			missThenStore(t, c, patchesRequest("a-", "late"))
			return 1
		}},
		{"stored again for the same request", func(t *testing.T, c *Cache, clk *clock) int {
			req := patchesRequest("a-", "x")
			missThenStore(t, c, req)
			clk.Add(5 * time.Minute)
			// A second store of the same request replaces the first and
			// counts its age from now.
			p, _ := c.Lookup(call, req, &runtimehooksv1.GeneratePatchesResponse{})
			c.Store(p, patchesFor(req))
			clk.Add(7 * time.Minute)
			missThenStore(t, c, patchesRequest("a-", "y"))
			if _, hit := c.Lookup(call, patchesRequest("b-", "x"), &runtimehooksv1.GeneratePatchesResponse{}); !hit {
				t.Error("the answer stored again went with the first store's age")
			}
			return 2
		}},
		{"turned off", func(t *testing.T, c *Cache, clk *clock) int {
			missThenStore(t, c, patchesRequest("a-", "x"))
			c.SetMaxAge("ext", 0)
			return 0
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clk := &clock{now: time.Unix(1000, 0)}
			c := New(Options{Now: clk.Now, MaxEntries: 2})
			c.SetMaxAge("ext", 10*time.Minute)
			want := tt.do(t, c, clk)
			if n, _ := c.Len(); n != want {
				t.Errorf("%d answers held, want %d", n, want)
			}
			checkBookkeeping(t, c)
		})
	}
}

func TestCache_DropsAnswersPastTheMaxAgeWithoutALookup(t *testing.T) {
	clk := &clock{now: time.Unix(1000, 0)}
	c := New(Options{Now: clk.Now})
	c.SetMaxAge("ext", 10*time.Minute)
	c.SetMaxAge("other", time.Hour)
	other := Call{Handler: "patch.other", ExtensionConfig: "other", Fingerprint: "fp"}
	store := func(call Call, holder string) {
		t.Helper()
		req := patchesRequest("a-", holder)
		p, hit := c.Lookup(call, req, &runtimehooksv1.GeneratePatchesResponse{})
		if hit {
			t.Fatalf("%s: first lookup hit", holder)
		}
		c.Store(p, patchesFor(req))
	}
	// Answers no one asks for again, as a Cluster's requests change while
	// it progresses: only a store comes after them.
	store(call, "first")
	store(other, "other")
	clk.Add(6 * time.Minute)
	store(call, "second")

	clk.Add(5 * time.Minute)
	store(call, "third")
	n, before := c.Len()
	if n != 3 {
		t.Fatalf("%d answers held, want 3: the second, the third and the other config's", n)
	}
	clk.Add(10 * time.Minute)
	store(other, "other-2")
	onlyOthers := New(Options{})
	onlyOthers.SetMaxAge("other", time.Hour)
	for _, holder := range []string{"other", "other-2"} {
		req := patchesRequest("a-", holder)
		p, _ := onlyOthers.Lookup(other, req, &runtimehooksv1.GeneratePatchesResponse{})
		onlyOthers.Store(p, patchesFor(req))
	}
	_, want := onlyOthers.Len()
	if n, after := c.Len(); n != 2 || after != want {
		t.Fatalf("after every answer of ext expired: %d answers, %d bytes (%d before); want the other config's two, %d bytes", n, after, before, want)
	}
}

func TestCache_SetMaxAgeLeavesOnlyAnswersWithinIt(t *testing.T) {
	for _, tt := range []struct {
		name string
		// The older answer x is stored gap before the younger y; then the
		// max age becomes newMaxAge.
		gap, newMaxAge time.Duration
	}{
		// Shortened below x's age: x goes at once.
		{"shorter", 6 * time.Minute, 5 * time.Minute},
		// y's store dropped x past 10 minutes; a longer max age does not
		// bring it back.
		{"longer after a drop", 11 * time.Minute, time.Hour},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clk := &clock{now: time.Unix(1000, 0)}
			c := New(Options{Now: clk.Now})
			c.SetMaxAge("ext", 10*time.Minute)
			missThenStore(t, c, patchesRequest("a-", "x"))
			clk.Add(tt.gap)
			missThenStore(t, c, patchesRequest("a-", "y"))
			c.SetMaxAge("ext", tt.newMaxAge)
			if n, _ := c.Len(); n != 1 {
				t.Fatalf("%d answers held, want y's alone", n)
			}
			if _, hit := c.Lookup(call, patchesRequest("b-", "x"), &runtimehooksv1.GeneratePatchesResponse{}); hit {
				t.Error("x was answered past the max age it was dropped under")
			}
			if _, hit := c.Lookup(call, patchesRequest("b-", "y"), &runtimehooksv1.GeneratePatchesResponse{}); !hit {
				t.Error("y, within the max age, went too")
			}
		})
	}
}

func TestCache_ForgetAndOptingOutDropAConfigsAnswers(t *testing.T) {
	other := Call{Handler: "patch.other", ExtensionConfig: "other", Fingerprint: "fp"}
	for _, drop := range []struct {
		name string
		do   func(c *Cache)
	}{
		{"Forget", func(c *Cache) { c.Forget("ext") }},
		{"SetMaxAge 0", func(c *Cache) { c.SetMaxAge("ext", 0) }},
		// The call in flight belongs to the config's caching before it
		// went off, and is not kept by the caching turned on after.
		{"SetMaxAge 0, then on again", func(c *Cache) { c.SetMaxAge("ext", 0); c.SetMaxAge("ext", time.Hour) }},
	} {
		t.Run(drop.name, func(t *testing.T) {
			c := New(Options{})
			c.SetMaxAge("ext", time.Hour)
			c.SetMaxAge("other", time.Hour)
			missThenStore(t, c, patchesRequest("a-", "x"))
			p, _ := c.Lookup(other, patchesRequest("a-", "x"), &runtimehooksv1.GeneratePatchesResponse{})
			c.Store(p, patchesFor(patchesRequest("a-", "x")))
			// A call in flight while the config changes.
			inFlight, _ := c.Lookup(call, patchesRequest("a-", "y"), &runtimehooksv1.GeneratePatchesResponse{})

			drop.do(c)
			c.Store(inFlight, patchesFor(patchesRequest("a-", "y")))
			if n, _ := c.Len(); n != 1 {
				t.Fatalf("%d answers held, want only the other config's", n)
			}
			if _, hit := c.Lookup(other, patchesRequest("b-", "x"), &runtimehooksv1.GeneratePatchesResponse{}); !hit {
				t.Error("the other config's answer went too")
			}
			checkBookkeeping(t, c)
		})
	}
}

func TestCache_EvictsAtItsBoundsAndNeverGrows(t *testing.T) {
	answerSize := func() int64 {
		c := New(Options{})
		c.SetMaxAge("ext", time.Hour)
		missThenStore(t, c, patchesRequest("a-", "h0"))
		_, b := c.Len()
		return b
	}()
	tests := []struct {
		name        string
		opts        Options
		wantEntries int
	}{
		{"entries", Options{MaxEntries: 3}, 3},
		{"bytes", Options{MaxBytes: 3*answerSize + answerSize/2}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(tt.opts)
			c.SetMaxAge("ext", time.Hour)
			for i := range 10 {
				missThenStore(t, c, patchesRequest("a-", fmt.Sprintf("h%d", i)))
				n, b := c.Len()
				if n > tt.wantEntries || (tt.opts.MaxBytes > 0 && b > tt.opts.MaxBytes) {
					t.Fatalf("after %d stores: %d entries, %d bytes", i+1, n, b)
				}
			}
			if n, _ := c.Len(); n != tt.wantEntries {
				t.Fatalf("%d entries, want %d", n, tt.wantEntries)
			}
			// The least recently used went first: h7..h9 stay.
			for i := range 10 {
				_, hit := c.Lookup(call, patchesRequest("b-", fmt.Sprintf("h%d", i)), &runtimehooksv1.GeneratePatchesResponse{})
				if want := i >= 7; hit != want {
					t.Errorf("h%d: hit %v, want %v", i, hit, want)
				}
			}
		})
	}
}

func TestCache_ValidateTopologyAnswers(t *testing.T) {
	c := New(Options{})
	c.SetMaxAge("ext", time.Hour)
	req := &runtimehooksv1.ValidateTopologyRequest{Items: []*runtimehooksv1.ValidateTopologyRequestItem{
		{HolderReference: runtimehooksv1.HolderReference{Kind: "Cluster", Name: "c"}, Object: runtime.RawExtension{Raw: []byte(`{}`)}},
	}}
	p, hit := c.Lookup(call, req, &runtimehooksv1.ValidateTopologyResponse{})
	if hit {
		t.Fatal("hit before any answer")
	}
	answer := &runtimehooksv1.ValidateTopologyResponse{}
	answer.Status, answer.Message = runtimehooksv1.ResponseStatusSuccess, "fine"
	c.Store(p, answer)
	got := &runtimehooksv1.ValidateTopologyResponse{}
	if _, hit := c.Lookup(call, req.DeepCopy(), got); !hit || got.Message != "fine" || got.Status != runtimehooksv1.ResponseStatusSuccess {
		t.Fatalf("hit %v, answer %+v", hit, got)
	}
}

// observed records what the Observer is told.
type observed struct {
	lookups map[string]int
	entries map[string]int
}

func (o *observed) Lookup(hook, handler, result string)    { o.lookups[hook+"/"+handler+"/"+result]++ }
func (o *observed) Entries(handler string, n int, _ int64) { o.entries[handler] = n }

func TestCache_TellsTheObserverHitsMissesAndEntries(t *testing.T) {
	o := &observed{lookups: map[string]int{}, entries: map[string]int{}}
	c := New(Options{Observer: o})
	c.SetMaxAge("ext", time.Hour)
	missThenStore(t, c, patchesRequest("a-", "x"))
	c.Lookup(call, patchesRequest("b-", "x"), &runtimehooksv1.GeneratePatchesResponse{})
	c.Lookup(call, patchesRequest("c-", "x", "x"), &runtimehooksv1.GeneratePatchesResponse{})
	want := map[string]int{"GeneratePatches/patch.ext/miss": 1, "GeneratePatches/patch.ext/hit": 1, "GeneratePatches/patch.ext/bypass": 1}
	for k, n := range want {
		if o.lookups[k] != n {
			t.Errorf("%s: %d, want %d (all: %v)", k, o.lookups[k], n, o.lookups)
		}
	}
	if o.entries["patch.ext"] != 1 {
		t.Errorf("entries %d, want 1", o.entries["patch.ext"])
	}
	c.Forget("ext")
	if o.entries["patch.ext"] != 0 {
		t.Errorf("entries after Forget %d, want 0", o.entries["patch.ext"])
	}
}

func TestCache_ForgetChangedKeepsAnswersOfSelectorChanges(t *testing.T) {
	state := func(config, fingerprint string) *registration.HandlerState {
		return &registration.HandlerState{Name: "patch." + config, ExtensionConfig: config, Fingerprint: fingerprint}
	}
	tests := []struct {
		name       string
		change     registration.Change
		wantForgot bool
	}{
		{"settings changed", registration.Change{Kind: registration.Changed, Old: state("ext", "a"), New: state("ext", "b")}, true},
		{"handler gone", registration.Change{Kind: registration.Removed, Old: state("ext", "a")}, true},
		{"selector changed", registration.Change{Kind: registration.SelectorChanged, Old: state("ext", "a"), New: state("ext", "a")}, false},
		{"handler added", registration.Change{Kind: registration.Added, New: state("ext", "a")}, false},
	}
	for _, tt := range tests {
		c := New(Options{})
		c.SetMaxAge("ext", time.Hour)
		missThenStore(t, c, patchesRequest("a-", "x"))
		c.ForgetChanged([]registration.Change{tt.change})
		if n, _ := c.Len(); (n == 0) != tt.wantForgot {
			t.Errorf("%s: %d answers held, want forgotten %v", tt.name, n, tt.wantForgot)
		}
	}
}

func TestCache_OtherHooksAreNeitherCachedNorCounted(t *testing.T) {
	o := &observed{lookups: map[string]int{}, entries: map[string]int{}}
	c := New(Options{Observer: o})
	c.SetMaxAge("ext", time.Hour)
	p, hit := c.Lookup(call, &runtimehooksv1.DiscoverVariablesRequest{}, &runtimehooksv1.DiscoverVariablesResponse{})
	answer := &runtimehooksv1.DiscoverVariablesResponse{}
	answer.Status = runtimehooksv1.ResponseStatusSuccess
	c.Store(p, answer)
	if n, _ := c.Len(); hit || n != 0 || len(o.lookups) != 0 {
		t.Errorf("hit %v, %d held, lookups %v; want a DiscoverVariables call passed through uncounted", hit, n, o.lookups)
	}
}

// Configs come and go over a manager's life; one turned off leaves
// nothing behind.
func TestCache_AConfigTurnedOffKeepsNoBookkeeping(t *testing.T) {
	c := New(Options{})
	for i := range 3 {
		config := fmt.Sprintf("ext-%d", i)
		c.SetMaxAge(config, time.Hour)
		c.Forget(config)
		c.SetMaxAge(config, 0)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.epoch) != 0 || len(c.maxAge) != 0 || len(c.stored) != 0 {
		t.Errorf("after every config went off: %d epochs, %d max ages and %d stored lists kept, want none", len(c.epoch), len(c.maxAge), len(c.stored))
	}
}
