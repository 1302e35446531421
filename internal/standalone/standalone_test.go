package standalone_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/standalone"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/apiservertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/standalonetest"
)

var env *apiservertest.Env

func TestMain(m *testing.M) {
	// The managers log through controller-runtime's root logger; tests
	// read what they need from the apiserver and metrics instead.
	ctrl.SetLogger(logr.Discard())
	os.Exit(apiservertest.Run(m, &env))
}

// The Secret watch (for CA injection) needs a Secret's name only. A Secret
// applied with kubectl carries its data in the last-applied annotation:
// none of it may stay in the controller's memory.
func TestCache_KeepsNoSecretAnnotationsLabelsOrManagedFields(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t, nil)
	const data = "c2VjcmV0LWtleS1tYXRlcmlhbA=="
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ext-ca",
			Labels: map[string]string{"team": "a"},
			Annotations: map[string]string{
				"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"v1","kind":"Secret","data":{"ca.crt":"` + data + `"}}`,
			}},
		Data: map[string][]byte{"ca.crt": []byte("secret-key-material")},
	}
	if err := env.Client.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}

	mgr := standalonetest.Start(t, env.Config, standalone.Options{})

	cached := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}}
	polltest.Eventually(t, 30*time.Second, "the Secret in the controller's cache", func() (bool, string) {
		err := mgr.GetCache().Get(ctx, client.ObjectKeyFromObject(secret), cached)
		return err == nil, fmt.Sprint(err)
	})
	if len(cached.Annotations) != 0 || len(cached.Labels) != 0 || len(cached.ManagedFields) != 0 {
		t.Errorf("the cached Secret keeps annotations %v, labels %v and %d managedFields entries; want none",
			keys(cached.Annotations), cached.Labels, len(cached.ManagedFields))
	}
	if text := fmt.Sprintf("%+v", cached); strings.Contains(text, data) || strings.Contains(text, "secret-key-material") {
		t.Error("the cached Secret holds its data")
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
