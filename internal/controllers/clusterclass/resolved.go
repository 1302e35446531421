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
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
)

// resolution is what one reconcile found for every handler reference of a
// ClusterClass: the registration it may use, or why it may not. The
// ExtensionsResolved condition and discovery both read it, so a reference
// fails the same way, in the same words, in both.
type resolution struct {
	usable   map[patchField]registry.Handler
	problems map[patchField]string
	// messages are the condition's, one per unusable reference, in patch
	// order: where the reference is, then its problem.
	messages []string
	// admitted is, per ExtensionConfig, whether its selector admitted the
	// namespace: what this reconcile applied.
	admitted map[string]bool
}

// patchField names one reference: a patch and one of its external fields.
type patchField struct{ patch, field string }

// resolve looks up every reference of cc once: registered, serving the
// hook its field needs, and admitting cc's namespace.
func (r *Reconciler) resolve(ctx context.Context, cc *clusterv1.ClusterClass) (*resolution, error) {
	refs, malformed := extensionindex.References(cc)
	res := &resolution{usable: map[patchField]registry.Handler{}, problems: map[patchField]string{}, admitted: map[string]bool{}}
	for _, m := range malformed {
		res.problems[patchField{m.Patch, m.Field}] = fmt.Sprintf("%q is not of the form <handler>.<extensionconfig>", m.Value)
		res.messages = append(res.messages, m.Error())
	}
	for _, ref := range refs {
		key := patchField{ref.Patch, ref.Field}
		problem, err := r.resolveOne(ctx, client.ObjectKeyFromObject(cc), ref, res)
		if err != nil {
			return nil, err
		}
		if problem != "" {
			res.problems[key] = problem
			res.messages = append(res.messages, fmt.Sprintf("patch %q %s %q: %s", ref.Patch, ref.Field, ref.Handler, problem))
		}
	}
	return res, nil
}

// resolveOne resolves one reference into res, returning why it cannot be
// used, or "" when it can.
func (r *Reconciler) resolveOne(ctx context.Context, cc types.NamespacedName, ref extensionindex.Reference, res *resolution) (string, error) {
	handler, ok := r.Registry.Get(ref.Handler)
	if !ok {
		return fmt.Sprintf("not registered: ExtensionConfig %q does not exist or has not discovered it", ref.ExtensionConfig), nil
	}
	if handler.Hook.Hook != ref.Hook {
		return fmt.Sprintf("serves %s, not %s", handler.Hook.Hook, ref.Hook), nil
	}
	admitted, err := r.admitted(ctx, cc.Namespace, handler)
	if err != nil {
		return "", err
	}
	res.admitted[ref.ExtensionConfig] = admitted
	switch {
	case !admitted && handler.NamespaceSelector == nil:
		// Only under Cluster API's reading: its runtime client refuses the
		// calls in these words, so the class and its Clusters say alike.
		return fmt.Sprintf("namespaceSelector did not match object %s: ExtensionConfig %q has no spec.namespaceSelector, "+
			"which Cluster API reads as admitting no namespace (its defaulting webhook writes {}); set it to {} to admit every namespace",
			cc, ref.ExtensionConfig), nil
	case !admitted:
		return fmt.Sprintf("namespace %q is not admitted by the namespaceSelector of ExtensionConfig %q", cc.Namespace, ref.ExtensionConfig), nil
	}
	res.usable[patchField{ref.Patch, ref.Field}] = handler
	return "", nil
}

// setExtensionsResolved sets ExtensionsResolved, naming each reference
// that cannot be used and why.
func setExtensionsResolved(cc *clusterv1.ClusterClass, res *resolution) {
	if len(res.messages) > 0 {
		objstatus.SetCondition(cc, userfacing.ExtensionsResolvedCondition, metav1.ConditionFalse, userfacing.ExtensionsNotResolvedReason, strings.Join(res.messages, "; "))
		return
	}
	objstatus.SetCondition(cc, userfacing.ExtensionsResolvedCondition, metav1.ConditionTrue, userfacing.ExtensionsResolvedReason, "")
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
