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

package sampleextension_test

import (
	"encoding/json"
	"testing"

	"k8s.io/utils/ptr"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

const beforeClusterCreatePath = "/hooks.runtime.cluster.x-k8s.io/v1alpha1/beforeclustercreate/before-cluster-create"

// GeneratePatches answers the configured JSON patch for exactly the items
// whose object is of the patch's kind, under the item's UID.
func TestGeneratePatches_AnswersThePatchOfEachItemsKind(t *testing.T) {
	s := sampleextension.New(sampleextension.Options{})
	patch := json.RawMessage(`[{"op":"add","path":"/spec/template/spec/region","value":"patched"}]`)
	s.SetPatches(sampleextension.GeneratePatchesHandler, []sampleextension.Patch{{Kind: "GenericInfrastructureClusterTemplate", JSONPatch: patch}})
	url, client := extension(t, s)

	body, err := json.Marshal(map[string]any{
		"apiVersion": hooksAPIVersion, "kind": "GeneratePatchesRequest",
		"items": []map[string]any{
			{"uid": "infra", "holderReference": map[string]any{}, "object": map[string]any{"kind": "GenericInfrastructureClusterTemplate"}},
			{"uid": "cp", "holderReference": map[string]any{}, "object": map[string]any{"kind": "GenericControlPlaneTemplate"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := post(client, url, generatePatchesPath, body)
	if err != nil {
		t.Fatal(err)
	}
	got := &runtimehooksv1.GeneratePatchesResponse{}
	if err := json.Unmarshal(resp.body, got); err != nil {
		t.Fatalf("decode %s: %v", resp.body, err)
	}
	if got.Status != runtimehooksv1.ResponseStatusSuccess || len(got.Items) != 1 {
		t.Fatalf("answer %s, want Success with one item", resp.body)
	}
	if item := got.Items[0]; item.UID != "infra" || item.PatchType != runtimehooksv1.JSONPatchType || string(item.Patch) != string(patch) {
		t.Errorf("item %+v, want the patch for uid infra", item)
	}
}

// A retry answers Success with retryAfterSeconds for the first calls of
// the handler, then Success without it.
func TestRetry_BlocksTheFirstCallsThenLetsThrough(t *testing.T) {
	s := sampleextension.New(sampleextension.Options{Handlers: []runtimehooksv1.ExtensionHandler{{
		Name:          "before-cluster-create",
		RequestHook:   runtimehooksv1.GroupVersionHook{APIVersion: hooksAPIVersion, Hook: "BeforeClusterCreate"},
		FailurePolicy: ptr.To(runtimehooksv1.FailurePolicyFail),
	}}})
	s.SetRetry("BeforeClusterCreate/before-cluster-create", sampleextension.Retry{Calls: 2, AfterSeconds: 7})
	url, client := extension(t, s)
	var retries []int32
	for range 3 {
		resp, err := post(client, url, beforeClusterCreatePath, hookRequest(t, "BeforeClusterCreateRequest"))
		if err != nil {
			t.Fatal(err)
		}
		got := &runtimehooksv1.BeforeClusterCreateResponse{}
		if err := json.Unmarshal(resp.body, got); err != nil || got.Status != runtimehooksv1.ResponseStatusSuccess {
			t.Fatalf("answer %s (%v), want Success", resp.body, err)
		}
		retries = append(retries, got.RetryAfterSeconds)
	}
	if retries[0] != 7 || retries[1] != 7 || retries[2] != 0 {
		t.Errorf("retryAfterSeconds of three calls = %v, want [7 7 0]", retries)
	}
}
