package clusterclass

import (
	"context"
	"fmt"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
	applied := map[string]bool{}
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
		applied[ref.ExtensionConfig] = admitted
		if !admitted {
			problems = append(problems, fmt.Sprintf("%s: namespace %q is not admitted by the namespaceSelector of ExtensionConfig %q", where, cc.Namespace, ref.ExtensionConfig))
		}
	}
	r.admissions.set(client.ObjectKeyFromObject(cc), applied)
	if len(problems) > 0 {
		objstatus.SetCondition(cc, ExtensionsResolvedCondition, metav1.ConditionFalse, ExtensionsNotResolvedReason, strings.Join(problems, "; "))
		return nil
	}
	objstatus.SetCondition(cc, ExtensionsResolvedCondition, metav1.ConditionTrue, ExtensionsResolvedReason, "")
	return nil
}

// admissionLog remembers, per ClusterClass, whether each ExtensionConfig it
// references admitted its namespace when it was last reconciled, so that
// Namespace and selector events decide flips against what was applied.
type admissionLog struct {
	mu   sync.Mutex
	byCC map[types.NamespacedName]map[string]bool
}

func (l *admissionLog) set(cc types.NamespacedName, admitted map[string]bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byCC == nil {
		l.byCC = map[types.NamespacedName]map[string]bool{}
	}
	l.byCC[cc] = admitted
}

func (l *admissionLog) forget(cc types.NamespacedName) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.byCC, cc)
}

// lookup is an extensionindex.AppliedAdmission.
func (l *admissionLog) lookup(cc types.NamespacedName, config string) (admitted, known bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	admitted, known = l.byCC[cc][config]
	return admitted, known
}
