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
	"time"

	"k8s.io/apimachinery/pkg/types"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/variablescache"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// discoverVariablesHook is the hook's name, as Cluster API's catalog
// gives it, in the calls counted.
var discoverVariablesHook = runtimecatalog.HookName(runtimehooksv1.DiscoverVariables)

// callError marks a failure of the extension itself (worth retrying), as
// opposed to a handler that is not registered or not admitted.
type callError struct{ err error }

func (e *callError) Error() string { return e.err.Error() }

func (e *callError) Unwrap() error { return e.err }

// ignoredCall marks a failed call that the handler's failurePolicy Ignore
// turns into an answer without variables, as Cluster API's runtime client
// does: one that got no answer a response could be read from.
type ignoredCall struct{ err error }

func (e *ignoredCall) Error() string { return e.err.Error() }

func (e *ignoredCall) Unwrap() error { return e.err }

// failedDiscovery wraps the error of a handler's DiscoverVariables call by
// what the reconcile makes of it: ignored under failurePolicy Ignore when
// the policy applies to it, a failure to retry otherwise.
func failedDiscovery(policy runtimev1.FailurePolicy, err error) error {
	if policy == runtimev1.FailurePolicyIgnore && rtclient.FailurePolicyApplies(err) {
		return &ignoredCall{err: err}
	}
	return &callError{err: err}
}

// discover returns the variables one patch's DiscoverVariables handler
// declares, from the cache when the same registration and settings were
// asked before.
func (r *Reconciler) discover(ctx context.Context, user types.NamespacedName, patch clusterv1.ClusterClassPatch, res *resolution) ([]clusterv1.ClusterClassVariable, error) {
	key := patchField{patch.Name, extensionindex.FieldDiscoverVariables}
	if problem, unusable := res.problems[key]; unusable {
		return nil, fmt.Errorf("%s: no call made", problem)
	}
	handler := res.usable[key]

	effective := rtclient.MergeSettings(handler.Settings, patch.External.Settings)
	started := time.Now()
	vars, outcome, err := r.Cache.GetFor(ctx, user, handler.Name, handler.Fingerprint, effective,
		func(ctx context.Context) ([]clusterv1.ClusterClassVariable, error) {
			// Counted here, so the refresher's calls, which reuse this
			// function, are counted as calls too.
			started := time.Now()
			request := &runtimehooksv1.DiscoverVariablesRequest{}
			request.Settings = patch.External.Settings
			response := &runtimehooksv1.DiscoverVariablesResponse{}
			timeout := time.Duration(handler.TimeoutSeconds) * time.Second
			err := r.Caller.Call(ctx, handler.ClientConfig, handler.Hook, handler.HandlerName, timeout, handler.Settings, request, response)
			metrics.ObserveCall(discoverVariablesHook, handler.Name, callOutcome(variablescache.Called, err), started)
			if err != nil {
				return nil, err
			}
			return response.Variables, nil
		})
	ctrl.LoggerFrom(ctx).V(4).Info("discover variables", "handler", handler.Name, "outcome", outcome)
	if outcome != variablescache.Called {
		metrics.ObserveCall(discoverVariablesHook, handler.Name, callOutcome(outcome, err), started)
	}
	metrics.VariablesCacheEntries.Set(float64(r.Cache.Len()))
	if err != nil {
		// Applied here, not in the cached call: the cache keeps an ignored
		// failure as a failure, so the next call can still bring variables.
		return nil, failedDiscovery(handler.FailurePolicy, err)
	}
	return vars, nil
}

func callOutcome(outcome variablescache.Outcome, err error) string {
	switch {
	case outcome == variablescache.Hit:
		return metrics.CallCacheHit
	case outcome == variablescache.Shared:
		return metrics.CallShared
	case outcome == variablescache.FailureShared:
		return metrics.CallFailureShared
	case err != nil:
		return metrics.CallError
	default:
		return metrics.CallSuccess
	}
}

// admitted checks the handler's namespaceSelector against the namespace's
// labels, read from the metadata cache; a nil selector admits none, as in
// Cluster API, whatever the labels.
func (r *Reconciler) admitted(ctx context.Context, namespace string, handler registry.Handler) (bool, error) {
	if handler.NamespaceSelector == nil {
		return false, nil
	}
	ns := extensionindex.NamespaceMetadata()
	if err := r.Client.Get(ctx, client.ObjectKey{Name: namespace}, ns); err != nil {
		return false, fmt.Errorf("read namespace %q: %w", namespace, err)
	}
	admitted, err := registration.Admits(handler.NamespaceSelector, ns.Labels)
	if err != nil {
		return false, fmt.Errorf("ExtensionConfig %q: %w", handler.ExtensionConfig, err)
	}
	return admitted, nil
}
