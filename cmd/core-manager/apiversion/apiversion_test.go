package apiversion

import (
	"context"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/apiservertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/minimalclass"
)

var env *apiservertest.Env

func TestMain(m *testing.M) { os.Exit(apiservertest.Run(m, &env)) }

func TestGetter_ReadsTheCurrentVersionFromTheCRDsContractLabel(t *testing.T) {
	env.Skip(t)
	get := Getter(env.Client)
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
