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
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

// randomRequest builds a GeneratePatches request shaped like Cluster
// API's: distinct holders, nested objects, global and item variables.
func randomRequest(r *rand.Rand) *runtimehooksv1.GeneratePatchesRequest {
	req := &runtimehooksv1.GeneratePatchesRequest{}
	req.Settings = map[string]string{}
	for i := range r.IntN(3) {
		req.Settings[fmt.Sprintf("s%d", i)] = fmt.Sprint(r.IntN(5))
	}
	req.Variables = randomVariables(r)
	for i := range 1 + r.IntN(5) {
		req.Items = append(req.Items, runtimehooksv1.GeneratePatchesRequestItem{
			UID: types.UID(fmt.Sprintf("uid-%d-%d", i, r.Int())),
			HolderReference: runtimehooksv1.HolderReference{
				APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "MachineDeployment",
				Namespace: "default", Name: fmt.Sprintf("md-%d", i), FieldPath: "spec.template.spec.infrastructureRef",
			},
			Object:    runtime.RawExtension{Raw: mustJSON(randomValue(r, 3))},
			Variables: randomVariables(r),
		})
	}
	return req
}

func randomVariables(r *rand.Rand) []runtimehooksv1.Variable {
	var out []runtimehooksv1.Variable
	for i := range r.IntN(3) {
		out = append(out, runtimehooksv1.Variable{Name: fmt.Sprintf("v%d", i), Value: apiextensionsv1.JSON{Raw: mustJSON(randomValue(r, 2))}})
	}
	return out
}

func randomValue(r *rand.Rand, depth int) any {
	if depth == 0 || r.IntN(3) == 0 {
		switch r.IntN(3) {
		case 0:
			return r.IntN(100)
		case 1:
			return fmt.Sprintf("x%d", r.IntN(100))
		default:
			return r.IntN(2) == 0
		}
	}
	m := map[string]any{}
	for i := range 1 + r.IntN(3) {
		m[fmt.Sprintf("k%d", i)] = randomValue(r, depth-1)
	}
	return m
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func keyOf(t *testing.T, req runtimehooksv1.RequestObject) Key {
	t.Helper()
	n, err := normalise(Call{Handler: "patch.ext", Fingerprint: "fp"}, req)
	if err != nil {
		t.Fatalf("normalise: %v", err)
	}
	return n.key
}

// reissued is req as Cluster API sends it again: fresh uids, items in
// another order, objects re-encoded with other key order and spacing.
func reissued(r *rand.Rand, req *runtimehooksv1.GeneratePatchesRequest) *runtimehooksv1.GeneratePatchesRequest {
	out := req.DeepCopy()
	r.Shuffle(len(out.Items), func(i, j int) { out.Items[i], out.Items[j] = out.Items[j], out.Items[i] })
	for i := range out.Items {
		out.Items[i].UID = types.UID(fmt.Sprintf("fresh-%d-%d", i, r.Int()))
		out.Items[i].Object.Raw = append([]byte("  "), reencoded(out.Items[i].Object.Raw)...)
	}
	return out
}

// reencoded writes the same JSON object with its keys in reverse order.
func reencoded(raw []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	out := []byte("{")
	for i := len(keys) - 1; i >= 0; i-- {
		out = append(out, mustJSON(keys[i])...)
		out = append(out, ':')
		out = append(out, m[keys[i]]...)
		if i > 0 {
			out = append(out, ',')
		}
	}
	return append(out, '}')
}

func TestNormalise_UIDsOrderAndEncodingDoNotCount(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		req := randomRequest(r)
		if a, b := keyOf(t, req), keyOf(t, reissued(r, req)); a != b {
			t.Fatalf("a reissued request got another key:\n%s", mustJSON(req))
		}
	}
}

// mutations each change one thing an extension can see.
var mutations = []struct {
	name   string
	mutate func(r *rand.Rand, req *runtimehooksv1.GeneratePatchesRequest)
}{
	{"an object field", func(r *rand.Rand, req *runtimehooksv1.GeneratePatchesRequest) {
		i := r.IntN(len(req.Items))
		var v any
		_ = json.Unmarshal(req.Items[i].Object.Raw, &v)
		req.Items[i].Object.Raw = mustJSON(map[string]any{"changed": v})
	}},
	{"a number's literal", func(r *rand.Rand, req *runtimehooksv1.GeneratePatchesRequest) {
		i := r.IntN(len(req.Items))
		req.Items[i].Object.Raw = []byte(`{"n":9007199254740993}`)
		j := (i + 1) % len(req.Items)
		if j != i {
			req.Items[j].Object.Raw = []byte(`{"n":9007199254740992}`)
		}
	}},
	{"an item variable", func(r *rand.Rand, req *runtimehooksv1.GeneratePatchesRequest) {
		i := r.IntN(len(req.Items))
		req.Items[i].Variables = append(req.Items[i].Variables, runtimehooksv1.Variable{Name: "new", Value: apiextensionsv1.JSON{Raw: []byte(`1`)}})
	}},
	{"a global variable's value", func(r *rand.Rand, req *runtimehooksv1.GeneratePatchesRequest) {
		if len(req.Variables) == 0 {
			req.Variables = append(req.Variables, runtimehooksv1.Variable{Name: "v0", Value: apiextensionsv1.JSON{Raw: []byte(`"other"`)}})
			return
		}
		req.Variables[0].Value.Raw = mustJSON([]any{json.RawMessage(req.Variables[0].Value.Raw)})
	}},
	{"a setting", func(r *rand.Rand, req *runtimehooksv1.GeneratePatchesRequest) {
		req.Settings["s0"] = req.Settings["s0"] + "x"
	}},
	{"a holder's field path", func(r *rand.Rand, req *runtimehooksv1.GeneratePatchesRequest) {
		req.Items[r.IntN(len(req.Items))].HolderReference.FieldPath = "spec.template.spec.bootstrap.configRef"
	}},
	{"a holder's name", func(r *rand.Rand, req *runtimehooksv1.GeneratePatchesRequest) {
		req.Items[r.IntN(len(req.Items))].HolderReference.Name = "renamed"
	}},
	{"an item less", func(r *rand.Rand, req *runtimehooksv1.GeneratePatchesRequest) {
		if len(req.Items) == 1 {
			req.Items = nil
			return
		}
		req.Items = req.Items[1:]
	}},
}

func TestNormalise_AnyFieldVariableOrSettingCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			for range 200 {
				req := randomRequest(r)
				changed := req.DeepCopy()
				m.mutate(r, changed)
				if keyOf(t, req) == keyOf(t, changed) {
					t.Fatalf("changing %s kept the key:\n%s\n%s", m.name, mustJSON(req), mustJSON(changed))
				}
				// Reissuing the changed request must not bring the key back.
				if keyOf(t, req) == keyOf(t, reissued(r, changed)) {
					t.Fatalf("changing %s and reissuing kept the key", m.name)
				}
			}
		})
	}
}

func TestNormalise_NumbersKeepTheirPrecision(t *testing.T) {
	with := func(n string) *runtimehooksv1.GeneratePatchesRequest {
		return &runtimehooksv1.GeneratePatchesRequest{Items: []runtimehooksv1.GeneratePatchesRequestItem{
			{UID: "1", HolderReference: runtimehooksv1.HolderReference{Kind: "Cluster", Name: "c"}, Object: runtime.RawExtension{Raw: []byte(`{"n":` + n + `}`)}},
		}}
	}
	// Equal as float64, different as integers.
	if keyOf(t, with("9007199254740993")) == keyOf(t, with("9007199254740992")) {
		t.Error("two integers a float64 cannot tell apart share a key")
	}
}

func TestNormalise_HandlerAndFingerprintCount(t *testing.T) {
	req := randomRequest(rand.New(rand.NewPCG(5, 6)))
	base, _ := normalise(Call{Handler: "a.ext", Fingerprint: "fp1"}, req)
	for _, other := range []struct{ handler, fingerprint string }{{"b.ext", "fp1"}, {"a.ext", "fp2"}} {
		n, _ := normalise(Call{Handler: other.handler, Fingerprint: other.fingerprint}, req)
		if n.key == base.key {
			t.Errorf("handler %s fingerprint %s shares the key of a.ext fp1", other.handler, other.fingerprint)
		}
	}
}

func TestNormalise_KeysTheSettingsAsSent(t *testing.T) {
	req := randomRequest(rand.New(rand.NewPCG(7, 8)))
	req.Settings = map[string]string{"a": "from-patch"}
	key := func(registration map[string]string) Key {
		n, err := normalise(Call{Handler: "h", Fingerprint: "fp", Settings: registration}, req)
		if err != nil {
			t.Fatal(err)
		}
		return n.key
	}
	// The patch's own setting overrides the registration's.
	if key(map[string]string{"a": "from-config"}) != key(nil) {
		t.Error("a registration setting the request overrides changed the key")
	}
	if key(map[string]string{"b": "1"}) == key(nil) {
		t.Error("a registration setting sent with the request kept the key")
	}
}

func TestNormalise_ValidateTopologyItemOrderDoesNotCount(t *testing.T) {
	item := func(name string) *runtimehooksv1.ValidateTopologyRequestItem {
		return &runtimehooksv1.ValidateTopologyRequestItem{
			HolderReference: runtimehooksv1.HolderReference{Kind: "MachineDeployment", Name: name, FieldPath: "spec"},
			Object:          runtime.RawExtension{Raw: []byte(`{"a":1}`)},
		}
	}
	a := &runtimehooksv1.ValidateTopologyRequest{Items: []*runtimehooksv1.ValidateTopologyRequestItem{item("x"), item("y")}}
	b := &runtimehooksv1.ValidateTopologyRequest{Items: []*runtimehooksv1.ValidateTopologyRequestItem{item("y"), item("x")}}
	if keyOf(t, a) != keyOf(t, b) {
		t.Error("item order changed a ValidateTopology key")
	}
	c := &runtimehooksv1.ValidateTopologyRequest{Items: []*runtimehooksv1.ValidateTopologyRequestItem{item("x"), item("z")}}
	if keyOf(t, a) == keyOf(t, c) {
		t.Error("another holder kept a ValidateTopology key")
	}
	// The same items as a GeneratePatches request are another request.
	g := &runtimehooksv1.GeneratePatchesRequest{Items: []runtimehooksv1.GeneratePatchesRequestItem{
		{UID: "1", HolderReference: item("x").HolderReference, Object: item("x").Object},
		{UID: "2", HolderReference: item("y").HolderReference, Object: item("y").Object},
	}}
	if keyOf(t, a) == keyOf(t, g) {
		t.Error("a GeneratePatches request shares a ValidateTopology key")
	}
}

func TestNormalise_RefusesWhatItCannotKeySoundly(t *testing.T) {
	holder := runtimehooksv1.HolderReference{Kind: "Cluster", Name: "c", FieldPath: "spec.infrastructureRef"}
	tests := []struct {
		name string
		req  runtimehooksv1.RequestObject
	}{
		{"two items of one holder", &runtimehooksv1.GeneratePatchesRequest{Items: []runtimehooksv1.GeneratePatchesRequestItem{
			{UID: "1", HolderReference: holder, Object: runtime.RawExtension{Raw: []byte(`{}`)}},
			{UID: "2", HolderReference: holder, Object: runtime.RawExtension{Raw: []byte(`{"a":1}`)}},
		}}},
		{"one uid on two items", &runtimehooksv1.GeneratePatchesRequest{Items: []runtimehooksv1.GeneratePatchesRequestItem{
			{UID: "1", HolderReference: holder, Object: runtime.RawExtension{Raw: []byte(`{}`)}},
			{UID: "1", HolderReference: runtimehooksv1.HolderReference{Kind: "Cluster", Name: "d"}, Object: runtime.RawExtension{Raw: []byte(`{}`)}},
		}}},
		{"an object that is not JSON", &runtimehooksv1.GeneratePatchesRequest{Items: []runtimehooksv1.GeneratePatchesRequestItem{
			{UID: "1", HolderReference: holder, Object: runtime.RawExtension{Raw: []byte(`{`)}},
		}}},
		{"an object given as a Go object, not raw JSON", &runtimehooksv1.GeneratePatchesRequest{Items: []runtimehooksv1.GeneratePatchesRequestItem{
			{UID: "1", HolderReference: holder, Object: runtime.RawExtension{Object: &runtimehooksv1.GeneratePatchesRequest{}}},
		}}},
		{"a nil ValidateTopology item", &runtimehooksv1.ValidateTopologyRequest{Items: []*runtimehooksv1.ValidateTopologyRequestItem{nil}}},
		{"another hook", &runtimehooksv1.DiscoverVariablesRequest{}},
	}
	for _, tt := range tests {
		if _, err := normalise(Call{Handler: "h", Fingerprint: "fp"}, tt.req); err == nil {
			t.Errorf("%s: normalised, want refused", tt.name)
		}
	}
}
