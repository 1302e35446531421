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
	"math"
	"math/bits"
	"reflect"
	"slices"
)

// maxDepth is more references deep than any value encoding/json decodes:
// it refuses nesting beyond 10,000 levels, and each level is at most two
// references (an interface and the map or slice in it). A walk that goes
// deeper is in a cycle.
const maxDepth = 2*10_000 + 100

// Retained estimates the bytes of memory v holds: its own size and, walked
// as a tree, every allocation it reaches: string bytes, slice backing arrays
// to their capacity, map tables, pointees and the values behind interfaces,
// each rounded up as Go's allocator rounds it. It is the default weight of
// an answer (Options.Weigh).
//
// It reads what the value holds, not what it was encoded as, because that
// is what a cache keeps: a decoded []ClusterClassVariable holds more than
// its JSON (a JSONSchemaProps takes 384 bytes however little of it an answer
// sets, each property behind a map entry), and how much more depends on the
// shape: weigh_test.go measures the heap of five shapes of answer against
// their JSON, and the factor differs more than tenfold between them, so no
// one factor on the JSON size bounds memory. The same test holds Retained
// within a few percent of the heap each shape holds.
//
// Storage shared by two references is counted at each (an overestimate,
// which keeps a bound a bound); channels, functions and unsafe pointers
// count as their header only. A value with a cycle, which no decoder
// makes, weighs math.MaxInt64 and is never stored.
func Retained(v any) int64 {
	if v == nil {
		return 0
	}
	w := walker{flat: map[reflect.Type]bool{}, fields: map[reflect.Type][]int{}}
	rv := reflect.ValueOf(v)
	n := int64(rv.Type().Size()) + w.reached(rv, 0)
	if w.cyclic {
		return math.MaxInt64
	}
	return n
}

// walker sums what a value reaches.
type walker struct {
	// flat remembers which types hold no references, whose values reach
	// nothing and need no walk (a []byte of megabytes is one allocation).
	flat map[reflect.Type]bool
	// fields are, by struct type, the fields that are not flat: a schema
	// sets few of its thirty.
	fields map[reflect.Type][]int
	cyclic bool
}

// reached is the bytes allocated outside v's own memory that v reaches;
// depth counts the references followed to get to v.
func (w *walker) reached(v reflect.Value, depth int) int64 {
	if depth > maxDepth {
		w.cyclic = true
	}
	if w.cyclic {
		return 0
	}
	var n int64
	switch v.Kind() {
	case reflect.String:
		if v.Len() > 0 {
			n = allocated(int64(v.Len()), false)
		}
	case reflect.Slice:
		if v.IsNil() || v.Cap() == 0 {
			return 0
		}
		elemFlat := w.isFlat(v.Type().Elem())
		n = allocated(int64(v.Cap())*int64(v.Type().Elem().Size()), !elemFlat)
		if !elemFlat {
			for i := range v.Len() {
				n += w.reached(v.Index(i), depth+1)
			}
		}
	case reflect.Array:
		if w.isFlat(v.Type().Elem()) {
			return 0
		}
		for i := range v.Len() {
			n += w.reached(v.Index(i), depth)
		}
	case reflect.Struct:
		for _, i := range w.referenceFields(v.Type()) {
			n += w.reached(v.Field(i), depth)
		}
	case reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		elemFlat := w.isFlat(v.Type().Elem())
		n = allocated(int64(v.Type().Elem().Size()), !elemFlat)
		if !elemFlat {
			n += w.reached(v.Elem(), depth+1)
		}
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		// A pointer-shaped value sits in the interface itself; any other
		// is boxed in an allocation of its own.
		if k := e.Kind(); k != reflect.Pointer && k != reflect.Map && k != reflect.Chan && k != reflect.Func && k != reflect.UnsafePointer {
			n = allocated(int64(e.Type().Size()), !w.isFlat(e.Type()))
		}
		n += w.reached(e, depth+1)
	case reflect.Map:
		if v.IsNil() {
			return 0
		}
		n = w.mapTable(v.Type(), v.Len())
		keyFlat, elemFlat := w.isFlat(v.Type().Key()), w.isFlat(v.Type().Elem())
		if keyFlat && elemFlat {
			return n
		}
		// One key and one element, set in turn, where reflect allows it (a
		// map reached through exported fields): Key and Value copy each
		// entry into an allocation of its own.
		reuse := v.CanInterface()
		key, elem := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		for it := v.MapRange(); it.Next(); {
			if !keyFlat {
				if reuse {
					key.SetIterKey(it)
				} else {
					key = it.Key()
				}
				n += w.reached(key, depth+1)
			}
			if !elemFlat {
				if reuse {
					elem.SetIterValue(it)
				} else {
					elem = it.Value()
				}
				n += w.reached(elem, depth+1)
			}
		}
	}
	return n
}

// referenceFields lists the fields of struct type t that are not flat.
func (w *walker) referenceFields(t reflect.Type) []int {
	if fields, ok := w.fields[t]; ok {
		return fields
	}
	fields := []int{}
	for i := range t.NumField() {
		if !w.isFlat(t.Field(i).Type) {
			fields = append(fields, i)
		}
	}
	w.fields[t] = fields
	return fields
}

// isFlat reports whether values of t reach no other allocation: numbers,
// booleans, and arrays and structs of them.
func (w *walker) isFlat(t reflect.Type) bool {
	if flat, ok := w.flat[t]; ok {
		return flat
	}
	var flat bool
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		flat = true
	case reflect.Array:
		flat = t.Len() == 0 || w.isFlat(t.Elem())
	case reflect.Struct:
		// Assumed not flat while its fields are looked at, so that a
		// recursive type (through a pointer or slice) ends the lookup.
		w.flat[t] = false
		flat = true
		for i := range t.NumField() {
			if !w.isFlat(t.Field(i).Type) {
				flat = false
				break
			}
		}
	}
	w.flat[t] = flat
	return flat
}

// maxInline is the largest key or element a Go map stores in its slots;
// larger ones are allocated apart, the slot holding a pointer.
const maxInline = 128

// mapTable estimates the memory of a map's own storage as Go 1.24's swiss
// tables hold it: groups of eight slots and a control word, filled to at
// most 7/8 (so n entries take the power of two of slots at or above 8n/7),
// in tables of at most 1024 slots; keys and elements over 128 bytes are
// allocated apart, their slot holding a pointer.
func (w *walker) mapTable(t reflect.Type, n int) int64 {
	const (
		mapHeader, tableHeader = 48, 48
		maxTableSlots          = 1024
	)
	if n == 0 {
		return mapHeader
	}
	key, elem := int64(t.Key().Size()), int64(t.Elem().Size())
	keyPointers, elemPointers := !w.isFlat(t.Key()), !w.isFlat(t.Elem())
	var apart int64
	if key > maxInline {
		apart += allocated(key, keyPointers)
		key, keyPointers = 8, true
	}
	if elem > maxInline {
		apart += allocated(elem, elemPointers)
		elem, elemPointers = 8, true
	}
	group := 8 + 8*(key+elem)
	pointers := keyPointers || elemPointers
	apart *= int64(n)
	if n <= 8 {
		return mapHeader + allocated(group, pointers) + apart
	}
	slots := int64(1) << bits.Len64(uint64((8*n+6)/7-1))
	if slots <= maxTableSlots {
		return mapHeader + tableHeader + allocated(slots/8*group, pointers) + apart
	}
	tables := slots / maxTableSlots
	return mapHeader + allocated(8*tables, true) + tables*(tableHeader+allocated(maxTableSlots/8*group, pointers)) + apart
}

// sizeClasses are the block sizes Go's allocator rounds small objects up
// to (internal/runtime/gc.SizeClassToSize, Go 1.26); larger objects take
// whole 8 KiB pages.
var sizeClasses = [...]int64{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048,
	2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880,
	12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

// mallocHeader is the word Go puts before an object over 512 bytes that
// holds pointers, for the garbage collector.
const mallocHeader = 8

// allocated is the size of the block Go's allocator hands out for n bytes
// (with pointers: whether the object holds any).
func allocated(n int64, pointers bool) int64 {
	if n <= 0 {
		return 0
	}
	if pointers && n > 512 {
		n += mallocHeader
	}
	if n > sizeClasses[len(sizeClasses)-1] {
		return (n + 8<<10 - 1) &^ (8<<10 - 1)
	}
	i, _ := slices.BinarySearch(sizeClasses[:], n)
	return sizeClasses[i]
}
