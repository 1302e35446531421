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
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/variablestest"
)

func TestRetained_CountsEachAllocationAsTheAllocatorRoundsIt(t *testing.T) {
	type withPointer struct {
		n *int64
		s string
	}
	type node struct{ next *node }
	cyclic := &node{}
	cyclic.next = cyclic
	tests := []struct {
		name string
		v    any
		want int64
	}{
		{name: "nil", v: nil, want: 0},
		{name: "a number holds its size", v: int64(7), want: 8},
		{name: "a string: header and bytes in an 8-byte class", v: "hello", want: 16 + 8},
		{name: "a byte slice to its capacity, not its length", v: make([]byte, 10, 1000), want: 24 + 1024},
		{name: "a large array is whole pages", v: make([]byte, 40<<10), want: 24 + 40<<10},
		{name: "strings of a slice: the array and each string", v: []string{"a", "bb", ""}, want: 24 + 48 + 8 + 8},
		{name: "a pointee and an unexported string", v: withPointer{n: ptr.To[int64](1), s: strings.Repeat("x", 100)}, want: 24 + 8 + 112},
		{name: "a nil pointer and an empty string reach nothing", v: withPointer{}, want: 24},
		// One group of eight slots of 16-byte keys and 16-byte elements and
		// its control word (264 bytes, class 288), the map's header, and the
		// strings.
		{name: "a small map", v: map[string]string{"k": "v", "key": "value"}, want: 8 + 48 + 288 + 4*8},
		{name: "a map in an unexported field", v: struct{ m map[string]string }{m: map[string]string{"k": "v"}}, want: 8 + 48 + 288 + 2*8},
		{name: "behind an interface, a boxed value", v: []any{int64(1), "s"}, want: 24 + 32 + 8 + 16 + 8},
		{name: "a cycle is never stored", v: cyclic, want: math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Retained(tt.v); got != tt.want {
				t.Errorf("Retained = %d, want %d", got, tt.want)
			}
		})
	}
}

// Decoded answers of every shape weigh what the heap holds for them, while
// their JSON size is off by a factor that depends on the shape: the reason
// the weight is measured on the value.
func TestRetained_MatchesTheHeapADecodedAnswerHolds(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes several megabytes; make test runs it")
	}
	if raceEnabled {
		// It allocates every object of under 16 bytes a block of its own,
		// which a production build packs: the heap is not the one to match.
		t.Skip("the race detector turns the tiny allocator off")
	}
	tests := []struct {
		name string
		vars func() []clusterv1.ClusterClassVariable
		// The factor on the JSON size this shape's heap shows, roughly.
		minFactor, maxFactor float64
	}{
		{name: "typed, described properties", vars: func() []clusterv1.ClusterClassVariable { return describedProperties(400) }, minFactor: 2.5, maxFactor: 4},
		{name: "long descriptions", vars: func() []clusterv1.ClusterClassVariable { return longDescriptions(40) }, minFactor: 1, maxFactor: 1.2},
		{name: "many empty properties", vars: func() []clusterv1.ClusterClassVariable { return emptyProperties(40_000) }, minFactor: 25, maxFactor: 45},
		{name: "many enum values", vars: func() []clusterv1.ClusterClassVariable { return enumValues(200_000) }, minFactor: 3, maxFactor: 5},
		{name: "many minimal variables", vars: func() []clusterv1.ClusterClassVariable { return minimalVariables(40_000) }, minFactor: 4.5, maxFactor: 7.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := json.Marshal(map[string]any{"status": "Success", "variables": tt.vars()})
			if err != nil {
				t.Fatal(err)
			}
			var decoded struct {
				Variables []clusterv1.ClusterClassVariable `json:"variables"`
			}
			before := liveHeap()
			if err := json.NewDecoder(bytes.NewReader(body)).Decode(&decoded); err != nil {
				t.Fatal(err)
			}
			held := liveHeap() - before
			weight := Retained(decoded.Variables)
			factor := float64(held) / float64(len(body))
			t.Logf("JSON %d bytes, heap %d (%.2f times), weight %d (%.3f of the heap)", len(body), held, factor, weight, float64(weight)/float64(held))
			// Under: the bound would not hold. Over by more than a few
			// percent: answers would be evicted for nothing.
			if float64(weight) < 0.98*float64(held) || float64(weight) > 1.05*float64(held) {
				t.Errorf("weight %d, heap %d: not within -2%%..+5%% of it", weight, held)
			}
			if factor < tt.minFactor || factor > tt.maxFactor {
				t.Errorf("heap %.2f times the JSON, expected %.1f..%.1f for this shape", factor, tt.minFactor, tt.maxFactor)
			}
			runtime.KeepAlive(body)
			runtime.KeepAlive(decoded)
		})
	}
}

// liveHeap is the heap in use once the garbage collector has run twice:
// the second empties the pools the first moved aside (encoding/json keeps
// its buffers in one).
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// describedProperties is n variables of twenty typed, described, bounded
// properties with an enum and a default each: a schema as extensions write
// them.
func describedProperties(n int) []clusterv1.ClusterClassVariable {
	out := make([]clusterv1.ClusterClassVariable, 0, n)
	for i := range n {
		out = append(out, variablestest.Described(fmt.Sprintf("variable%05d", i)))
	}
	return out
}

func longDescriptions(n int) []clusterv1.ClusterClassVariable {
	out := make([]clusterv1.ClusterClassVariable, 0, n)
	for i := range n {
		out = append(out, clusterv1.ClusterClassVariable{Name: fmt.Sprintf("v%d", i), Schema: clusterv1.VariableSchema{
			OpenAPIV3Schema: clusterv1.JSONSchemaProps{Type: "string", Description: strings.Repeat("x", 100_000)},
		}})
	}
	return out
}

func emptyProperties(n int) []clusterv1.ClusterClassVariable {
	props := make(map[string]clusterv1.JSONSchemaProps, n)
	for j := range n {
		props[fmt.Sprintf("p%d", j)] = clusterv1.JSONSchemaProps{}
	}
	return []clusterv1.ClusterClassVariable{{Name: "v", Schema: clusterv1.VariableSchema{
		OpenAPIV3Schema: clusterv1.JSONSchemaProps{Type: "object", Properties: props},
	}}}
}

func enumValues(n int) []clusterv1.ClusterClassVariable {
	enum := make([]apiextensionsv1.JSON, 0, n)
	for j := range n {
		enum = append(enum, apiextensionsv1.JSON{Raw: fmt.Appendf(nil, `"e%d"`, j)})
	}
	return []clusterv1.ClusterClassVariable{{Name: "v", Schema: clusterv1.VariableSchema{
		OpenAPIV3Schema: clusterv1.JSONSchemaProps{Type: "string", Enum: enum},
	}}}
}

func minimalVariables(n int) []clusterv1.ClusterClassVariable {
	out := make([]clusterv1.ClusterClassVariable, 0, n)
	for i := range n {
		out = append(out, clusterv1.ClusterClassVariable{Name: fmt.Sprintf("v%d", i), Required: ptr.To(true), Schema: clusterv1.VariableSchema{
			OpenAPIV3Schema: clusterv1.JSONSchemaProps{Type: "string"},
		}})
	}
	return out
}
