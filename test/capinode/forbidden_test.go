package capinode

import (
	"bytes"
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2/textlogger"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/apiservertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// The log check finds a request the apiserver's authorization refused, as
// a manager logs it (klog's text format, as Cluster API's managers write
// it), and passes over a validation error that also says Forbidden: a new
// finalizer on an object being deleted, which Cluster API's own MachineSet
// controller logs during a scale. Both errors come from a real apiserver.
func TestForbidden_MatchesAuthorizationRefusalsNotOtherForbiddenErrors(t *testing.T) {
	capimanagement.Require(t)
	env, err := apiservertest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	ctx := context.Background()

	asManager := rest.CopyConfig(env.Config)
	asManager.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:capi-system:capi-manager"}
	manager, err := client.New(asManager, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	refused := manager.List(ctx, &corev1.SecretList{}, client.InNamespace("default"))
	if refused == nil {
		t.Fatal("a ServiceAccount with no role listed Secrets: the apiserver does not authorize")
	}

	held := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "held", Finalizers: []string{"rsc.lab/hold"}}}
	if err := env.Client.Create(ctx, held); err != nil {
		t.Fatal(err)
	}
	defer func() {
		held.Finalizers = nil
		_ = env.Client.Update(ctx, held)
	}()
	if err := env.Client.Delete(ctx, held); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(held), held); err != nil {
		t.Fatal(err)
	}
	held.Finalizers = append(held.Finalizers, "rsc.lab/another")
	invalid := env.Client.Update(ctx, held)
	if invalid == nil || !strings.Contains(invalid.Error(), "Forbidden") {
		t.Fatalf("adding a finalizer to an object being deleted: %v, want a validation error that says Forbidden", invalid)
	}
	held.Finalizers = held.Finalizers[:1]

	var logs bytes.Buffer
	logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(&logs)))
	for i, err := range []error{refused, invalid} {
		logs.Reset()
		logger.Error(err, "Reconciler error", "controller", "machineset")
		line := strings.TrimSpace(logs.String())
		if got, want := rbacRefusal.MatchString(line), i == 0; got != want {
			t.Errorf("the log check matched %v, want %v, on:\n%s", got, want, line)
		}
	}
}
