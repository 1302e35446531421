package clusterclass

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/objstatus"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
)

// ExtensionsResolvedCondition is our condition on ClusterClasses: True when
// every handler its patches reference (generate, validate or discover) is
// registered, serves the right hook, and admits the ClusterClass's
// namespace.
const (
	ExtensionsResolvedCondition = "ExtensionsResolved"
	ExtensionsResolvedReason    = "ExtensionsResolved"
	ExtensionsNotResolvedReason = "ExtensionsNotResolved"
)

// hookOfField is the hook each external patch field must point at.
var hookOfField = map[string]string{
	extensionindex.FieldGeneratePatches:   "GeneratePatches",
	extensionindex.FieldValidateTopology:  "ValidateTopology",
	extensionindex.FieldDiscoverVariables: "DiscoverVariables",
}

// reconcileExtensionsResolved sets ExtensionsResolved, naming each
// reference that cannot be used and why.
func (r *Reconciler) reconcileExtensionsResolved(ctx context.Context, cc *clusterv1.ClusterClass) error {
	refs, malformed := extensionindex.References(cc)
	var problems []string
	for _, m := range malformed {
		problems = append(problems, m.Error())
	}
	for _, ref := range refs {
		where := fmt.Sprintf("patch %q %s %q", ref.Patch, ref.Field, ref.Handler)
		handler, ok := r.Registry.Get(ref.Handler)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: not registered (ExtensionConfig %q does not exist or has not discovered it)", where, ref.ExtensionConfig))
			continue
		}
		if want := hookOfField[ref.Field]; handler.Hook.Hook != want {
			problems = append(problems, fmt.Sprintf("%s: serves %s, not %s", where, handler.Hook.Hook, want))
			continue
		}
		admitted, err := r.admitted(ctx, cc.Namespace, handler)
		if err != nil {
			return err
		}
		if !admitted {
			problems = append(problems, fmt.Sprintf("%s: namespace %q is not admitted by the namespaceSelector of ExtensionConfig %q", where, cc.Namespace, ref.ExtensionConfig))
		}
	}
	if len(problems) > 0 {
		objstatus.SetCondition(cc, ExtensionsResolvedCondition, metav1.ConditionFalse, ExtensionsNotResolvedReason, strings.Join(problems, "; "))
		return nil
	}
	objstatus.SetCondition(cc, ExtensionsResolvedCondition, metav1.ConditionTrue, ExtensionsResolvedReason, "")
	return nil
}
