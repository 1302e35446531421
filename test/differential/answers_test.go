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

package differential

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
)

// answerAllowances are the answers our client reads differently from
// Cluster API's on purpose, beside AllowList.
var answerAllowances = []Allowance{
	{Path: regexp.MustCompile(`^ClusterClass ` + answersNamespace + `/other-kind \.status\.`),
		Reason: "a DiscoverVariables answer naming another hook's kind (GeneratePatchesResponse): Cluster API decodes the fields that match, " +
			"finds no variables and shows VariablesReady True; ours refuses an answer of another kind as misrouted or foreign " +
			"(internal/runtime/client's doc) and says so in VariablesReady False"},
}

// One extension answers Discovery and DiscoverVariables with raw bytes,
// one way per ExtensionConfig. Cluster API's manager and the drop-in each
// read them on a fresh control plane and must write the same, but for the
// allowances; each case must also settle where it
// should under each, so that equality cannot come from both failing.
func TestAnswers_AcceptedAsClusterAPIsClientAcceptsThem(t *testing.T) {
	binDir := capibaseline.Require(t)
	ctx := context.Background()
	cases := answerCases()
	server := newAnswerServer(cases)
	url, ca, stop, err := sampleextension.StartTLS(server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	endpoint := Endpoint{URL: url, CA: ca}

	baseline := runUnder(t, ctx, newAnswerFixture(endpoint, cases, clusterAPIClient), "baseline", func(c *Cluster) (Manager, error) {
		return c.StartBaseline(ctx, binDir, "capi")
	})
	dropIn := runUnder(t, ctx, newAnswerFixture(endpoint, cases, ourClient), "core-manager", func(c *Cluster) (Manager, error) {
		return c.StartDropIn(ctx, binDir, coreManager, "core-manager")
	})

	allow := append(slices.Clone(AllowList), answerAllowances...)
	compareAnswers(t, baseline, dropIn, allow)

	runs := []struct {
		name     string
		reader   answerReader
		snapshot Snapshot
	}{
		{"Cluster API", clusterAPIClient, baseline},
		{"the drop-in", ourClient, dropIn},
	}
	t.Log("case: Discovered/VariablesReady under Cluster API, the drop-in")
	for _, c := range cases {
		row := c.name + ":"
		for _, run := range runs {
			checkOutcome(t, run.name, run.snapshot, c, run.reader)
			row += " " + outcome(run.snapshot, c.name)
		}
		t.Log(row)
		if got := server.variablesCalls(c.name); c.calledForVariables != (got > 0) {
			t.Errorf("%s: DiscoverVariables called %d times over two runs; want calls: %t", c.name, got, c.calledForVariables)
		}
	}
	// A misrouted call would fail a case for the wrong reason.
	if strays := server.strays(); len(strays) > 0 {
		t.Errorf("calls to paths no case answers: %q", strays)
	}
}

// compareAnswers reports the differences between baseline and ours, and
// fails when one of answerAllowances allowed nothing: it would hide
// whatever comes to match it later.
func compareAnswers(t *testing.T, baseline, ours Snapshot, allow []Allowance) {
	t.Helper()
	c := Compare(baseline, ours, allow)
	report(t, c)
	for _, a := range answerAllowances {
		if !slices.ContainsFunc(c.Allowed, func(d Difference) bool { return d.Reason == a.Reason }) {
			t.Errorf("the allowance for %s allowed no difference: drop it, or find what else changed", a.Path)
		}
	}
}

// checkOutcome fails unless the case's ExtensionConfig and ClusterClass
// show what r's client makes of its answers, and its variable is published
// exactly when it should be.
func checkOutcome(t *testing.T, manager string, s Snapshot, c answerCase, r answerReader) {
	t.Helper()
	discovered, ready := c.settled(r)
	config := "ExtensionConfig " + c.name + " .status.conditions[Discovered].status"
	class := "ClusterClass " + answersNamespace + "/" + c.name + " .status"
	if got := s[config]; got != string(discovered) {
		t.Errorf("%s: %s = %q; want %s", manager, config, got, discovered)
	}
	if got := s[class+".conditions[VariablesReady].status"]; got != string(ready) {
		t.Errorf("%s: %s.conditions[VariablesReady].status = %q (%s); want %s",
			manager, class, got, s[class+".conditions[VariablesReady]"+messageSuffix], ready)
	}
	published := strings.Contains(s[class+".variables"], `"name":"`+c.name+`"`)
	if want := c.publishes && ready == metav1.ConditionTrue; published != want {
		t.Errorf("%s: %s.variables = %.300s; want the variable %q published: %t", manager, class, s[class+".variables"], c.name, want)
	}
}

// outcome is the case's Discovered and VariablesReady statuses in s, as
// "True/False".
func outcome(s Snapshot, name string) string {
	return s["ExtensionConfig "+name+" .status.conditions[Discovered].status"] + "/" +
		s["ClusterClass "+answersNamespace+"/"+name+" .status.conditions[VariablesReady].status"]
}
