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
