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
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"

	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
)

// Key identifies a request up to what cannot change its answer: the
// handler, its registration's fingerprint, and the request without item
// uids and item order.
type Key [sha256.Size]byte

// request is a request as the cache sees it: its key, and for
// GeneratePatches the uid each holder's item carries, to map an answer's
// patches onto this request.
type request struct {
	key         Key
	uidByHolder map[string]types.UID
	holderByUID map[types.UID]string
}

// The normal form that is hashed. Item order is by holder, and objects
// and values are re-encoded with sorted keys, so that two requests whose
// objects are equal but encoded differently share a key.
type normalForm struct {
	Hook        string            `json:"hook"`
	Handler     string            `json:"handler"`
	Fingerprint string            `json:"fingerprint"`
	Settings    map[string]string `json:"settings,omitempty"`
	Variables   []normalVariable  `json:"variables,omitempty"`
	Items       []normalItem      `json:"items"`
}

type normalItem struct {
	Holder    string           `json:"holder"`
	Object    json.RawMessage  `json:"object"`
	Variables []normalVariable `json:"variables,omitempty"`
}

type normalVariable struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// errUncacheable marks a request the cache must pass through: its items
// cannot be told apart by holder, or it is of a hook not cached.
var errUncacheable = errors.New("request cannot be cached")

// normalise builds the key of a request as it is sent to call's handler,
// with the settings merged. It refuses requests it cannot key soundly.
func normalise(call Call, req runtimehooksv1.RequestObject) (request, error) {
	form := normalForm{Handler: call.Handler, Fingerprint: call.Fingerprint, Settings: rtclient.MergeSettings(call.Settings, req.GetSettings())}
	out := request{uidByHolder: map[string]types.UID{}, holderByUID: map[types.UID]string{}}
	var err error
	switch r := req.(type) {
	case *runtimehooksv1.GeneratePatchesRequest:
		form.Hook = generatePatchesHook
		if form.Variables, err = normalVariables(r.Variables); err != nil {
			return request{}, err
		}
		for i := range r.Items {
			item := &r.Items[i]
			n, err := normalItemOf(item.HolderReference, item.Object, item.Variables)
			if err != nil {
				return request{}, err
			}
			if _, dup := out.holderByUID[item.UID]; dup {
				return request{}, fmt.Errorf("%w: uid %q is on two items", errUncacheable, item.UID)
			}
			out.uidByHolder[n.Holder] = item.UID
			out.holderByUID[item.UID] = n.Holder
			form.Items = append(form.Items, n)
		}
	case *runtimehooksv1.ValidateTopologyRequest:
		form.Hook = validateTopologyHook
		if form.Variables, err = normalVariables(r.Variables); err != nil {
			return request{}, err
		}
		for _, item := range r.Items {
			if item == nil {
				return request{}, fmt.Errorf("%w: an item is nil", errUncacheable)
			}
			n, err := normalItemOf(item.HolderReference, item.Object, item.Variables)
			if err != nil {
				return request{}, err
			}
			form.Items = append(form.Items, n)
		}
	default:
		return request{}, fmt.Errorf("%w: %T is not a GeneratePatches or ValidateTopology request", errUncacheable, req)
	}
	sort.Slice(form.Items, func(i, j int) bool { return form.Items[i].Holder < form.Items[j].Holder })
	for i := 1; i < len(form.Items); i++ {
		// Two items of one holder and field would make the mapping of an
		// answer back onto the request ambiguous.
		if form.Items[i].Holder == form.Items[i-1].Holder {
			return request{}, fmt.Errorf("%w: two items share holder %s", errUncacheable, form.Items[i].Holder)
		}
	}
	encoded, err := json.Marshal(form)
	if err != nil {
		return request{}, fmt.Errorf("%w: %v", errUncacheable, err)
	}
	out.key = sha256.Sum256(encoded)
	return out, nil
}

func normalItemOf(holder runtimehooksv1.HolderReference, object runtime.RawExtension, variables []runtimehooksv1.Variable) (normalItem, error) {
	// Every field of the reference counts, the field path included: it is
	// what tells a holder's several templates apart.
	h, err := json.Marshal(holder)
	if err != nil {
		return normalItem{}, fmt.Errorf("%w: %v", errUncacheable, err)
	}
	if object.Raw == nil && object.Object != nil {
		// Sent as Object's encoding, which the key does not read. Cluster
		// API always sets Raw; anyone else's request goes uncached.
		return normalItem{}, fmt.Errorf("%w: object of %s is given as a Go object, not raw JSON", errUncacheable, h)
	}
	obj, err := canonicalJSON(object.Raw)
	if err != nil {
		return normalItem{}, fmt.Errorf("%w: object of %s: %v", errUncacheable, h, err)
	}
	vars, err := normalVariables(variables)
	if err != nil {
		return normalItem{}, err
	}
	return normalItem{Holder: string(h), Object: obj, Variables: vars}, nil
}

// normalVariables keeps the variables' order: Cluster API builds them from
// lists, not maps, so an order change is a different request.
func normalVariables(variables []runtimehooksv1.Variable) ([]normalVariable, error) {
	out := make([]normalVariable, 0, len(variables))
	for _, v := range variables {
		value, err := canonicalJSON(v.Value.Raw)
		if err != nil {
			return nil, fmt.Errorf("%w: variable %s: %v", errUncacheable, v.Name, err)
		}
		out = append(out, normalVariable{Name: v.Name, Value: value})
	}
	return out, nil
}

// canonicalJSON re-encodes a JSON value with sorted object keys. Numbers
// keep their literal text (json.Number), so two values that only a float
// would confuse keep different keys.
func canonicalJSON(raw []byte) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage("null"), nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return json.Marshal(v)
}
