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

package dropin

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/minimalclass"
)

func TestAPIVersionGetter_ReadsTheCurrentVersionFromTheCRDsContractLabel(t *testing.T) {
	env.Skip(t)
	get := apiVersionGetter(env.Client)
	kind := minimalclass.InfrastructureCluster
	got, err := get(context.Background(), schema.GroupKind{Group: kind.Group, Kind: kind.Kind})
	if err != nil {
		t.Fatal(err)
	}
	if want := kind.Group + "/" + kind.Version(); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	_, err = get(context.Background(), schema.GroupKind{Group: kind.Group, Kind: "NoSuchTemplate"})
	if err == nil || !strings.HasPrefix(err.Error(), "failed to get apiVersion for kind NoSuchTemplate: ") {
		t.Errorf("a kind without a CRD: %v, want Cluster API's wording", err)
	}
}
