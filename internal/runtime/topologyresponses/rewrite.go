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
	"reflect"

	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

// answerFrom writes into resp a copy of the stored answer, its patches
// moved onto req's items: each patch's uid names a holder in the stored
// request, and the item of that holder in req gives the new uid. It
// reports false, leaving resp as it was, when the answer cannot be moved.
func answerFrom(e *entry, req request, resp runtimehooksv1.ResponseObject) bool {
	answer := e.response.DeepCopyObject()
	if patches, ok := answer.(*runtimehooksv1.GeneratePatchesResponse); ok {
		for i := range patches.Items {
			holder, ok := e.holderByUID[patches.Items[i].UID]
			if !ok {
				return false
			}
			uid, ok := req.uidByHolder[holder]
			if !ok {
				return false
			}
			patches.Items[i].UID = uid
		}
	}
	out, in := reflect.ValueOf(resp), reflect.ValueOf(answer)
	if in.Type() != out.Type() {
		return false
	}
	reflect.Indirect(out).Set(reflect.Indirect(in))
	return true
}

// namesOnlyRequestItems checks that every patch of a GeneratePatches
// answer names an item of the request. Cluster API fails such an answer
// ("unable to find corresponding request item"); it must not be kept and
// answered again as if it were sound.
func namesOnlyRequestItems(resp runtimehooksv1.ResponseObject, req request) error {
	patches, ok := resp.(*runtimehooksv1.GeneratePatchesResponse)
	if !ok {
		return nil
	}
	for _, item := range patches.Items {
		if _, ok := req.holderByUID[item.UID]; !ok {
			return fmt.Errorf("%w: %q", errUnknownUID, item.UID)
		}
	}
	return nil
}
