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

package sampleextension

import (
	"encoding/json"
	"fmt"

	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

// Patch is what a GeneratePatches handler answers for the request items
// whose object is of kind Kind: a JSON patch (RFC 6902) of that object.
type Patch struct {
	Kind      string          `json:"kind"`
	JSONPatch json.RawMessage `json:"jsonPatch"`
}

// Retry makes the first Calls calls of one handler, counted as Calls counts
// them, answer Success with retryAfterSeconds set to AfterSeconds, as a
// lifecycle hook that blocks does; later calls answer without it. It only
// applies to hooks whose response can ask for a retry.
type Retry struct {
	Calls        int64 `json:"calls"`
	AfterSeconds int32 `json:"afterSeconds"`
}

// SetPatches sets the patches the GeneratePatches handler named handler
// answers with; nil or empty answers none.
func (s *Server) SetPatches(handler string, patches []Patch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.patches == nil {
		s.patches = map[string][]Patch{}
	}
	if len(patches) == 0 {
		delete(s.patches, handler)
		return
	}
	s.patches[handler] = append([]Patch{}, patches...)
}

// SetRetry sets how the handler keyed "<Hook>/<handler>" (as in Calls)
// asks for retries; the zero Retry stops it.
func (s *Server) SetRetry(key string, r Retry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.retries == nil {
		s.retries = map[string]Retry{}
	}
	if r == (Retry{}) {
		delete(s.retries, key)
		return
	}
	s.retries[key] = r
}

// answer fills the parts of a Success response that depend on the request:
// the patches of GeneratePatches and the retry of a blocking hook. calls is
// the number of calls of the route, this one included.
func (s *Server) answer(rt route, req any, resp runtimehooksv1.ResponseObject, calls int64) error {
	s.mu.RLock()
	patches, retry := s.patches[rt.handler], s.retries[rt.key()]
	s.mu.RUnlock()
	if r, ok := resp.(runtimehooksv1.RetryResponseObject); ok && calls <= retry.Calls {
		r.SetRetryAfterSeconds(retry.AfterSeconds)
		r.SetMessage(fmt.Sprintf("retry %d of %d", calls, retry.Calls))
	}
	request, ok := req.(*runtimehooksv1.GeneratePatchesRequest)
	generated, isPatches := resp.(*runtimehooksv1.GeneratePatchesResponse)
	if !ok || !isPatches || len(patches) == 0 {
		return nil
	}
	for _, item := range request.Items {
		var object struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(item.Object.Raw, &object); err != nil {
			return fmt.Errorf("decode object of item %s: %w", item.UID, err)
		}
		for _, p := range patches {
			if p.Kind == object.Kind {
				generated.Items = append(generated.Items, runtimehooksv1.GeneratePatchesResponseItem{
					UID: item.UID, PatchType: runtimehooksv1.JSONPatchType, Patch: append([]byte{}, p.JSONPatch...),
				})
			}
		}
	}
	return nil
}
