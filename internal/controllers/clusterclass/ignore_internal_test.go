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
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/registry"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/variablescache"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextensiontest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/variableschema"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// discoveryUnderTest is a Reconciler that calls real extensions, without a
// cluster, and a ClusterClass with an inline variable "zone" and one
// external patch whose DiscoverVariables handler is at config.
type discoveryUnderTest struct {
	r   *Reconciler
	cc  *clusterv1.ClusterClass
	res *resolution
}

func newDiscoveryUnderTest(t *testing.T, config runtimev1.ClientConfig, policy runtimev1.FailurePolicy) *discoveryUnderTest {
	t.Helper()
	caller, err := rtclient.New(rtclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &Reconciler{
		Caller: caller,
		// A failure stands in for calls for a nanosecond only, so the
		// next reconcile calls again.
		Cache:   variablescache.New[[]clusterv1.ClusterClassVariable](variablescache.Options{FailureBackoff: time.Nanosecond}),
		Schemas: &variableschema.Verdicts{},
	}
	const configName = "ext"
	handler := registry.Handler{
		HandlerState: registration.HandlerState{
			Name: registration.FullHandlerName(sampleextension.DiscoverVariablesHandler, configName), ExtensionConfig: configName, Fingerprint: "f1",
		},
		HandlerName:    sampleextension.DiscoverVariablesHandler,
		Hook:           runtimecatalog.GroupVersionHook{Group: runtimehooksv1.GroupVersion.Group, Version: runtimehooksv1.GroupVersion.Version, Hook: "DiscoverVariables"},
		TimeoutSeconds: 5,
		FailurePolicy:  policy,
		ClientConfig:   config,
	}
	cc := &clusterv1.ClusterClass{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cc", Generation: 1}}
	cc.Spec.Variables = []clusterv1.ClusterClassVariable{stringVar("zone", false)}
	cc.Spec.Patches = []clusterv1.ClusterClassPatch{{Name: "external", External: &clusterv1.ExternalPatchDefinition{DiscoverVariablesExtension: handler.Name}}}
	res := &resolution{
		usable:   map[patchField]registry.Handler{{"external", extensionindex.FieldDiscoverVariables}: handler},
		problems: map[patchField]string{},
	}
	return &discoveryUnderTest{r: r, cc: cc, res: res}
}

// reconcile runs one pass of reconcileVariables and returns whether it
// was ready, VariablesReady, the published variables and the retry error.
func (d *discoveryUnderTest) reconcile(t *testing.T) (ready bool, condition *metav1.Condition, variables string, retry error) {
	t.Helper()
	ready, retry = d.r.reconcileVariables(context.Background(), d.cc, d.res)
	condition = meta.FindStatusCondition(d.cc.Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition)
	if condition == nil {
		t.Fatal("no VariablesReady condition")
	}
	var names []string
	for _, v := range d.cc.Status.Variables {
		names = append(names, v.Name)
	}
	return ready, condition, strings.Join(names, " "), retry
}

// As Cluster API's CallExtension, failurePolicy Ignore makes an answer
// without variables of a DiscoverVariables call that got no readable
// answer, and of nothing else: the patch adds no variables, the others are
// published as ready. The reconcile is still retried, and the failure is
// never cached as an answer.
func TestReconcileVariables_FailurePolicyIgnoreDropsOnlyCallsWithoutAReadableAnswer(t *testing.T) {
	unreachable := sampleextensiontest.UnreachableURL(t)
	size := `{"name":"size","required":true,"schema":{"openAPIV3Schema":{"type":"string"}}}`

	tests := []struct {
		name   string
		config func(t *testing.T) runtimev1.ClientConfig
		// ignored: under Ignore the patch adds nothing and the class is
		// ready; under Fail (and otherwise under both) it is not, saying want.
		ignored bool
		want    string
	}{
		{name: "unreachable", ignored: true, want: "unreachable", config: func(t *testing.T) runtimev1.ClientConfig {
			return runtimev1.ClientConfig{URL: unreachable, CABundle: sampleextensiontest.Answering(t, http.StatusOK, "").CABundle}
		}},
		{name: "HTTP 500", ignored: true, want: "answered HTTP 500", config: func(t *testing.T) runtimev1.ClientConfig {
			return sampleextensiontest.Answering(t, http.StatusInternalServerError, "boom")
		}},
		{name: "body not JSON", ignored: true, want: "not a JSON object", config: func(t *testing.T) runtimev1.ClientConfig {
			return sampleextensiontest.Answering(t, http.StatusOK, "<html>")
		}},
		// Cluster API's client would keep the variables decoded before the
		// bad field; as our drop-in's client, none of half an answer is kept.
		{name: "JSON of another shape after a variable", ignored: true, want: "cannot unmarshal number", config: func(t *testing.T) runtimev1.ClientConfig {
			return sampleextensiontest.Answering(t, http.StatusOK, `{"status":"Success","variables":[`+size+`],"message":5}`)
		}},
		{name: "status Failure", want: `answered status "Failure": no`, config: func(t *testing.T) runtimev1.ClientConfig {
			return sampleextensiontest.Answering(t, http.StatusOK, `{"status":"Failure","message":"no"}`)
		}},
		{name: "another hook's kind", want: "answered a GeneratePatchesResponse where a DiscoverVariablesResponse was expected", config: func(t *testing.T) runtimev1.ClientConfig {
			return sampleextensiontest.Answering(t, http.StatusOK, `{"kind":"GeneratePatchesResponse","status":"Success","variables":[`+size+`]}`)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := tt.config(t)
			for _, policy := range []runtimev1.FailurePolicy{runtimev1.FailurePolicyIgnore, runtimev1.FailurePolicyFail} {
				d := newDiscoveryUnderTest(t, config, policy)
				ready, condition, variables, retry := d.reconcile(t)
				if retry == nil || !strings.Contains(retry.Error(), tt.want) {
					t.Errorf("%s: retry %v, want one saying %q", policy, retry, tt.want)
				}
				if n := d.r.Cache.Len(); n != 0 {
					t.Errorf("%s: %d answers cached from a failed call", policy, n)
				}
				if tt.ignored && policy == runtimev1.FailurePolicyIgnore {
					if !ready || condition.Status != metav1.ConditionTrue || condition.Reason != clusterv1.ClusterClassVariablesReadyReason ||
						condition.Message != "" || variables != "zone" {
						t.Errorf("Ignore: ready %t, %s/%s %q, variables %q; want ready with the inline zone only, as Cluster API",
							ready, condition.Status, condition.Reason, condition.Message, variables)
					}
					if !strings.Contains(retry.Error(), "failurePolicy Ignore") {
						t.Errorf("Ignore: retry %q does not say the failure was ignored", retry)
					}
					continue
				}
				if ready || condition.Status != metav1.ConditionFalse || condition.Reason != clusterv1.ClusterClassVariablesReadyVariableDiscoveryFailedReason ||
					!strings.Contains(condition.Message, tt.want) || variables != "" {
					t.Errorf("%s: ready %t, %s/%s %q, variables %q; want not ready, saying %q, nothing published",
						policy, ready, condition.Status, condition.Reason, condition.Message, variables, tt.want)
				}
			}
		})
	}
}

// An ignored failure is not an answer: once the handler answers, the next
// reconcile publishes its variables and stops retrying; when it fails
// again behind a new registration, its variables go, as in Cluster API.
func TestReconcileVariables_AnIgnoredFailureGivesWayToTheHandlersNextAnswer(t *testing.T) {
	ext := sampleextension.New(sampleextension.Options{Variables: map[string][]clusterv1.ClusterClassVariable{
		sampleextension.DiscoverVariablesHandler: {stringVar("size", true)},
	}})
	url, ca, stop, err := sampleextension.StartTLS(ext)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	target := "DiscoverVariables/" + sampleextension.DiscoverVariablesHandler
	ext.SetFaults(target, sampleextension.Faults{ErrorRate: 1})
	d := newDiscoveryUnderTest(t, runtimev1.ClientConfig{URL: url, CABundle: ca}, runtimev1.FailurePolicyIgnore)

	if ready, _, variables, retry := d.reconcile(t); !ready || retry == nil || variables != "zone" {
		t.Fatalf("failing: ready %t, retry %v, variables %q; want ready with zone only, retried", ready, retry, variables)
	}
	ext.ResetFaults()
	polltest.Eventually(t, 10*time.Second, "the handler's answer published", func() (bool, string) {
		ready, _, variables, retry := d.reconcile(t)
		return ready && retry == nil && variables == "size zone", "variables " + variables
	})

	// A new registration asks again; the call fails, and is ignored.
	ext.SetFaults(target, sampleextension.Faults{ErrorRate: 1})
	handler := d.res.usable[patchField{"external", extensionindex.FieldDiscoverVariables}]
	handler.Fingerprint = "f2"
	d.res.usable[patchField{"external", extensionindex.FieldDiscoverVariables}] = handler
	if ready, _, variables, retry := d.reconcile(t); !ready || retry == nil || variables != "zone" {
		t.Errorf("failing again: ready %t, retry %v, variables %q; want ready with zone only, retried", ready, retry, variables)
	}
}
