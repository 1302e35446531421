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

package coremanager

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// assembly is what a core manager runs, as seen from outside: one fact per
// thing, keyed by what it is about ("controller crdmigrator") and phrased
// as what is true of it ("runs with 1 worker"), so that a difference reads
// as a sentence.
type assembly map[string]string

// What a fact is about, and how it is phrased.
func controllerFact(name string, workers int) (string, string) {
	if workers == 1 {
		return "controller " + name, "runs with 1 worker"
	}
	return "controller " + name, fmt.Sprintf("runs with %d workers", workers)
}

func leaseFact(namespace, name string) (string, string) {
	return "leader election Lease " + namespace + "/" + name, "is held"
}

func checkFact(endpoint, name string) (string, string) {
	return "/" + endpoint + " check " + name, "is listed"
}

func webhookFact(path string, status int) (string, string) {
	if status == 404 {
		return "webhook path " + path, "is not served (HTTP 404)"
	}
	return "webhook path " + path, fmt.Sprintf("is served (HTTP %d)", status)
}

func crdMarkFact(crd, observedGeneration string) (string, string) {
	if observedGeneration == "" {
		return "CRD " + crd, "is not marked by the CRD migrator"
	}
	return "CRD " + crd, "is marked by the CRD migrator at generation " + observedGeneration
}

func storedVersionsFact(crd string, storedVersions []string) (string, string) {
	return "storedVersions of CRD " + crd, fmt.Sprintf("are %v", storedVersions)
}

func (a assembly) add(about, fact string) { a[about] = fact }

// String lists the facts, one a line, for a failure's log.
func (a assembly) String() string {
	var lines []string
	for _, about := range slices.Sorted(maps.Keys(a)) {
		lines = append(lines, about+" "+a[about])
	}
	return strings.Join(lines, "\n")
}

// expectedDifference is a difference between the drop-in and Cluster API's
// manager that one of our three parts makes on purpose: the facts about
// one thing under each ("" where it is missing), and why.
type expectedDifference struct {
	about, capi, ours string
	reason            string
}

// expectedDifferences is every difference the drop-in may show. Our
// ExtensionConfig and ClusterClass controllers are not on it: they take
// Cluster API's controller names ("extensionconfig", "clusterclass") and
// its --extensionconfig-concurrency and --clusterclass-concurrency, so
// they must run as Cluster API's do; the runtime client is no controller.
var expectedDifferences = []expectedDifference{{
	about: "/readyz check registry", ours: "is listed",
	reason: "our registry warms up from the handlers ExtensionConfig status records before the manager is ready; " +
		"until then a reconcile would mistake them for missing (Cluster API's warm-up has no check)",
}}

// compareAssemblies names every difference between what Cluster API's
// manager and the drop-in run that expected does not list, and every
// expected difference that did not show, which the list must lose.
func compareAssemblies(capi, ours assembly, expected []expectedDifference) []string {
	union := maps.Clone(capi)
	maps.Copy(union, ours)
	abouts := slices.Sorted(maps.Keys(union))
	var found []string
	seen := make([]bool, len(expected))
	for _, about := range abouts {
		theirs, mine := capi[about], ours[about]
		if theirs == mine {
			continue
		}
		i := slices.IndexFunc(expected, func(e expectedDifference) bool {
			return e.about == about && e.capi == theirs && e.ours == mine
		})
		if i >= 0 {
			seen[i] = true
			continue
		}
		found = append(found, describeDifference(about, theirs, mine))
	}
	for i, e := range expected {
		if !seen[i] {
			found = append(found, "expected difference not seen, drop it from expectedDifferences: "+describeDifference(e.about, e.capi, e.ours))
		}
	}
	return found
}

// describeDifference says what is true of about under each manager.
func describeDifference(about, capi, ours string) string {
	switch {
	case ours == "":
		return fmt.Sprintf("%s %s under Cluster API's manager and is missing from the drop-in", about, capi)
	case capi == "":
		return fmt.Sprintf("%s %s in the drop-in and is missing from Cluster API's manager", about, ours)
	default:
		return fmt.Sprintf("%s %s under Cluster API's manager and %s in the drop-in", about, capi, ours)
	}
}

func TestCompareAssemblies_NamesEveryDifferenceTheListDoesNotExpect(t *testing.T) {
	of := func(facts ...func() (string, string)) assembly {
		a := assembly{}
		for _, f := range facts {
			a.add(f())
		}
		return a
	}
	controller := func(name string, workers int) func() (string, string) {
		return func() (string, string) { return controllerFact(name, workers) }
	}
	webhook := func(path string, status int) func() (string, string) {
		return func() (string, string) { return webhookFact(path, status) }
	}
	readyz := func(name string) func() (string, string) {
		return func() (string, string) { return checkFact("readyz", name) }
	}
	registry := expectedDifference{about: "/readyz check registry", ours: "is listed", reason: "ours"}
	tests := []struct {
		name       string
		capi, ours assembly
		expected   []expectedDifference
		want       []string
	}{
		{
			name: "the same assembly has no difference",
			capi: of(controller("machine", 10), webhook("/validate-x", 200)),
			ours: of(controller("machine", 10), webhook("/validate-x", 200)),
		},
		{
			name: "a controller missing from the drop-in",
			capi: of(controller("machine", 10), controller("crdmigrator", 1)),
			ours: of(controller("machine", 10)),
			want: []string{"controller crdmigrator runs with 1 worker under Cluster API's manager and is missing from the drop-in"},
		},
		{
			name: "another worker count, and a controller of the drop-in's own",
			capi: of(controller("machine", 10)),
			ours: of(controller("machine", 5), controller("namespace", 1)),
			want: []string{
				"controller machine runs with 10 workers under Cluster API's manager and runs with 5 workers in the drop-in",
				"controller namespace runs with 1 worker in the drop-in and is missing from Cluster API's manager",
			},
		},
		{
			name: "a webhook the drop-in does not serve",
			capi: of(webhook("/validate-x", 200)),
			ours: of(webhook("/validate-x", 404)),
			want: []string{"webhook path /validate-x is served (HTTP 200) under Cluster API's manager and is not served (HTTP 404) in the drop-in"},
		},
		{
			name:     "an expected difference is not reported",
			capi:     of(readyz("webhook")),
			ours:     of(readyz("webhook"), readyz("registry")),
			expected: []expectedDifference{registry},
		},
		{
			name:     "an expected difference that does not show is, so that the list stays short",
			capi:     of(readyz("webhook")),
			ours:     of(readyz("webhook")),
			expected: []expectedDifference{registry},
			want:     []string{"expected difference not seen, drop it from expectedDifferences: /readyz check registry is listed in the drop-in and is missing from Cluster API's manager"},
		},
		{
			name:     "an expected difference excuses only the facts it names",
			capi:     of(controller("clusterclass", 10)),
			ours:     of(controller("clusterclass", 1)),
			expected: []expectedDifference{{about: "controller clusterclass", capi: "runs with 10 workers", ours: "runs with 5 workers"}},
			want: []string{
				"controller clusterclass runs with 10 workers under Cluster API's manager and runs with 1 worker in the drop-in",
				"expected difference not seen, drop it from expectedDifferences: controller clusterclass runs with 10 workers under Cluster API's manager and runs with 5 workers in the drop-in",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compareAssemblies(tt.capi, tt.ours, tt.expected)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// Every expected difference says why, so that the list can be read as a
// record of what the drop-in changes.
func TestExpectedDifferences_EachHasAReason(t *testing.T) {
	for _, e := range expectedDifferences {
		if e.reason == "" || e.about == "" || e.capi == e.ours {
			t.Errorf("%+v: an expected difference names what it is about, two different facts and a reason", e)
		}
	}
}
