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

package whouses

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/apiservertest"
)

var env *apiservertest.Env

func TestMain(m *testing.M) { os.Exit(apiservertest.Run(m, &env)) }

func clusterClass(namespace, name string, external clusterv1.ExternalPatchDefinition) *clusterv1.ClusterClass {
	return apiservertest.ClusterClass(namespace, name, apiservertest.ExternalPatch("ext", external))
}

func TestFind_ListsReferencersWithFieldsAdmissionAndHandlerState(t *testing.T) {
	ctx := context.Background()
	config := "whouses-" + rand.String(5)
	env.RecordedExtensionConfig(t, config, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}, "vars")
	admitted := env.Namespace(t, map[string]string{"team": "a"})
	rejected := env.Namespace(t, map[string]string{"team": "b"})
	for _, cc := range []*clusterv1.ClusterClass{
		clusterClass(admitted, "both", clusterv1.ExternalPatchDefinition{GeneratePatchesExtension: "gen." + config, DiscoverVariablesExtension: "vars." + config}),
		clusterClass(rejected, "vars", clusterv1.ExternalPatchDefinition{DiscoverVariablesExtension: "vars." + config}),
		clusterClass(admitted, "other", clusterv1.ExternalPatchDefinition{DiscoverVariablesExtension: "vars.other-" + config}),
	} {
		if err := env.Client.Create(ctx, cc); err != nil {
			t.Fatal(err)
		}
	}

	uses, err := Find(ctx, env.Client, config, "")
	if err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	want := []Use{
		{Namespace: admitted, ClusterClass: "both", Admitted: &yes, References: []Reference{
			{Patch: "ext", Field: "generatePatchesExtension", Handler: "gen." + config, State: "not discovered"},
			{Patch: "ext", Field: "discoverVariablesExtension", Handler: "vars." + config, State: "discovered"},
		}},
		{Namespace: rejected, ClusterClass: "vars", Admitted: &no, References: []Reference{
			{Patch: "ext", Field: "discoverVariablesExtension", Handler: "vars." + config, State: "discovered"},
		}},
	}
	// Generated namespace names order the two uses either way.
	if uses[0].Namespace != want[0].Namespace {
		want[0], want[1] = want[1], want[0]
	}
	if !reflect.DeepEqual(uses, want) {
		t.Errorf("Find =\n%+v\nwant\n%+v", uses, want)
	}

	byHandler, err := Find(ctx, env.Client, "", "gen."+config)
	if err != nil {
		t.Fatal(err)
	}
	if len(byHandler) != 1 || byHandler[0].ClusterClass != "both" || len(byHandler[0].References) != 1 {
		t.Errorf("by handler: %+v", byHandler)
	}

	missing, err := Find(ctx, env.Client, "other-"+config, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) != 1 || missing[0].Admitted != nil || missing[0].References[0].State != "config missing" {
		t.Errorf("missing config: %+v", missing)
	}

	var table, js bytes.Buffer
	if err := WriteTable(&table, uses); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "generatePatchesExtension") || !strings.Contains(table.String(), "not discovered") {
		t.Errorf("table:\n%s", table.String())
	}
	if err := WriteJSON(&js, uses); err != nil {
		t.Fatal(err)
	}
	var decoded []Use
	if err := json.Unmarshal(js.Bytes(), &decoded); err != nil || !reflect.DeepEqual(decoded, uses) {
		t.Errorf("JSON does not round-trip: %v\n%s", err, js.String())
	}

	if _, err := Find(ctx, env.Client, "", "nodot"); err == nil {
		t.Error("a malformed handler name was accepted")
	}
}
