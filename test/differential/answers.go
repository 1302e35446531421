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
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/minimalclass"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// answersNamespace holds every ClusterClass of the answer fixture.
const answersNamespace = "answers"

// largeAnswerBytes is about how large the large-answer case's
// DiscoverVariables answer is: far over anything a real extension sends,
// under our client's bound (32 MiB).
const largeAnswerBytes = 5 << 20

// answer is what the answer server writes for one hook of one case.
type answer struct {
	// code is the HTTP status; zero means 200.
	code int
	body string
}

// answerCase is one way an extension may answer Discovery and
// DiscoverVariables, and the statuses the case's ExtensionConfig
// (Discovered) and ClusterClass (VariablesReady) settle at.
type answerCase struct {
	// name is the case's ExtensionConfig, its ClusterClass and the first
	// segment of its URL's path; no dot, so "<handler>.<name>" splits once.
	name                         string
	discovery, discoverVariables answer
	// discovered and variablesReady are where Cluster API's client leaves
	// the case.
	discovered, variablesReady metav1.ConditionStatus
	// oursVariablesReady, when set, is where our client leaves the class
	// instead: an answer it refuses on purpose (internal/runtime/client's
	// doc lists them), allowed in the comparison with the reason.
	oursVariablesReady metav1.ConditionStatus
	// publishes says the answer's variable, named as the case, reaches
	// status.variables.
	publishes bool
	// calledForVariables says DiscoverVariables is called at all: Discovery
	// registered the handler.
	calledForVariables bool
}

// answerReader is whose runtime client reads the answers, which decides
// where a case settles.
type answerReader int

const (
	clusterAPIClient answerReader = iota
	// ourClient is the client of our controller and of the drop-in.
	ourClient
)

// settled is where the case's config and class settle under r's client.
func (c answerCase) settled(r answerReader) (discovered, variablesReady metav1.ConditionStatus) {
	if r == ourClient && c.oursVariablesReady != "" {
		return c.discovered, c.oursVariablesReady
	}
	return c.discovered, c.variablesReady
}

// hooksAPIVersion is the apiVersion of every hook the cases use.
const hooksAPIVersion = "hooks.runtime.cluster.x-k8s.io/v1alpha1"

// handlerJSON is one entry of a Discovery answer's handlers; more is
// appended to its fields as written (",\"timeoutSeconds\":10").
func handlerJSON(name, hook, more string) string {
	return `{"name":"` + name + `","requestHook":{"apiVersion":"` + hooksAPIVersion + `","hook":"` + hook + `"}` + more + `}`
}

// discoveryJSON is a Discovery answer saying Success with handlers, with
// no apiVersion or kind, as Cluster API's server library writes it.
func discoveryJSON(handlers ...string) string {
	return `{"status":"Success","handlers":[` + strings.Join(handlers, ",") + `]}`
}

// variableJSON is one string variable named name.
func variableJSON(name string) string {
	return `{"name":"` + name + `","required":false,"schema":{"openAPIV3Schema":{"type":"string"}}}`
}

// answerCases are the answers the fixture serves, one ExtensionConfig and
// one ClusterClass each.
func answerCases() []answerCase {
	const (
		dvName = sampleextension.DiscoverVariablesHandler
		gpName = sampleextension.GeneratePatchesHandler
		dvHook = "DiscoverVariables"
		gpHook = "GeneratePatches"
		fail   = `,"timeoutSeconds":10,"failurePolicy":"Fail"`
	)
	dv := handlerJSON(dvName, dvHook, fail)
	gp := handlerJSON(gpName, gpHook, fail)
	discovery := answer{body: discoveryJSON(dv, gp)}
	success := func(name string) string { return `{"status":"Success","variables":[` + variableJSON(name) + `]}` }
	variables := func(name string) answer { return answer{body: success(name)} }
	const (
		t = metav1.ConditionTrue
		f = metav1.ConditionFalse
	)
	// Each case is named as its variable.
	cases := []answerCase{
		{name: "server-library", discovery: discovery, discoverVariables: variables("server-library"),
			discovered: t, variablesReady: t, publishes: true},
		// Both clients decode the first JSON value and read no further.
		{name: "trailing-value",
			discovery:         answer{body: discoveryJSON(dv, gp) + "\n" + `{"x":1}`},
			discoverVariables: answer{body: success("trailing-value") + "\n" + `{"x":1}`},
			discovered:        t, variablesReady: t, publishes: true},
		{name: "trailing-garbage",
			discovery:         answer{body: discoveryJSON(dv, gp) + "garbage"},
			discoverVariables: answer{body: success("trailing-garbage") + "garbage"},
			discovered:        t, variablesReady: t, publishes: true},
		// Discovery is in the catalog: a handler for it is registered, and
		// never called.
		{name: "discovery-handler",
			discovery:         answer{body: discoveryJSON(dv, gp, handlerJSON("discovery", "Discovery", ""))},
			discoverVariables: variables("discovery-handler"),
			discovered:        t, variablesReady: t, publishes: true},
		{name: "unknown-fields",
			discovery: answer{body: `{"status":"Success","vendor":{"name":"acme"},"handlers":[` +
				handlerJSON(dvName, dvHook, fail+`,"priority":3`) + "," + gp + `]}`},
			discoverVariables: answer{body: `{"status":"Success","cacheHint":"static","variables":[` +
				`{"name":"unknown-fields","required":false,"owner":"acme","schema":{"openAPIV3Schema":{"type":"string"}}}]}`},
			discovered: t, variablesReady: t, publishes: true},
		// A valid answer: the class then names a handler no one registered.
		{name: "no-handlers", discovery: answer{body: `{"status":"Success","handlers":[]}`}, discoverVariables: variables("no-handlers"),
			discovered: t, variablesReady: f},
		{name: "status-maybe", discovery: discovery,
			discoverVariables: answer{body: `{"status":"Maybe","variables":[` + variableJSON("status-maybe") + `]}`},
			discovered:        t, variablesReady: f, calledForVariables: true},
		{name: "status-missing", discovery: discovery,
			discoverVariables: answer{body: `{"variables":[` + variableJSON("status-missing") + `]}`},
			discovered:        t, variablesReady: f, calledForVariables: true},
		{name: "status-failure", discovery: discovery,
			discoverVariables: answer{body: `{"status":"Failure","message":"the variables' source is not ready yet"}`},
			discovered:        t, variablesReady: f, calledForVariables: true},
		// Valid JSON of about 5 MiB that still decodes to one variable:
		// what is stored must stay under etcd's request limit.
		{name: "large-answer", discovery: discovery,
			discoverVariables: answer{body: `{"status":"Success",` + strings.Repeat(" ", largeAnswerBytes) +
				`"variables":[` + variableJSON("large-answer") + `]}`},
			discovered: t, variablesReady: t, publishes: true},
		{name: "http-500-fail", discovery: discovery,
			discoverVariables: answer{code: http.StatusInternalServerError, body: "internal error: the variables' source is down\n"},
			discovered:        t, variablesReady: f, calledForVariables: true},
		// Ignore turns the failed call into a success without variables.
		{name: "http-500-ignore",
			discovery:         answer{body: discoveryJSON(handlerJSON(dvName, dvHook, `,"timeoutSeconds":10,"failurePolicy":"Ignore"`), gp)},
			discoverVariables: answer{code: http.StatusInternalServerError, body: "internal error: the variables' source is down\n"},
			discovered:        t, variablesReady: t, calledForVariables: true},
		// Cluster API decodes the fields that match (none: no variables);
		// ours refuses another hook's answer.
		{name: "other-kind", discovery: discovery,
			discoverVariables: answer{body: `{"apiVersion":"` + hooksAPIVersion + `","kind":"GeneratePatchesResponse","status":"Success","items":[]}`},
			discovered:        t, variablesReady: t, oursVariablesReady: f, calledForVariables: true},
		// One invalid handler fails the whole Discovery answer, so nothing
		// is registered and the class names an unregistered handler.
		{name: "duplicate-handlers", discovery: answer{body: discoveryJSON(dv, dv, gp)}, discoverVariables: variables("duplicate-handlers"),
			discovered: f, variablesReady: f},
		{name: "dotted-handler", discovery: answer{body: discoveryJSON(dv, gp, handlerJSON("discover.variables", dvHook, fail))},
			discoverVariables: variables("dotted-handler"),
			discovered:        f, variablesReady: f},
		{name: "timeout-31", discovery: answer{body: discoveryJSON(handlerJSON(dvName, dvHook, `,"timeoutSeconds":31,"failurePolicy":"Fail"`), gp)},
			discoverVariables: variables("timeout-31"),
			discovered:        f, variablesReady: f},
		{name: "unknown-policy", discovery: answer{body: discoveryJSON(handlerJSON(dvName, dvHook, `,"timeoutSeconds":10,"failurePolicy":"Sometimes"`), gp)},
			discoverVariables: variables("unknown-policy"),
			discovered:        f, variablesReady: f},
		{name: "discovery-no-status", discovery: answer{body: `{"handlers":[` + dv + "," + gp + `]}`}, discoverVariables: variables("discovery-no-status"),
			discovered: f, variablesReady: f},
		// DiscoverVariables cannot block: retryAfterSeconds is an unknown
		// field of its answer.
		{name: "retry-after", discovery: discovery,
			discoverVariables: answer{body: `{"status":"Success","retryAfterSeconds":30,"variables":[` + variableJSON("retry-after") + `]}`},
			discovered:        t, variablesReady: t, publishes: true},
	}
	for i := range cases {
		// Every class that publishes was answered.
		cases[i].calledForVariables = cases[i].calledForVariables || cases[i].publishes
	}
	return cases
}

// Paths the answer server answers under each case's segment.
var (
	discoveryHookPath         = mustHookPath(runtimehooksv1.Discovery, "")
	discoverVariablesHookPath = mustHookPath(runtimehooksv1.DiscoverVariables, sampleextension.DiscoverVariablesHandler)
)

// mustHookPath is the path both clients append to a clientConfig.url for
// hook and handler, from Cluster API's catalog.
func mustHookPath(hook runtimecatalog.Hook, handler string) string {
	c := runtimecatalog.New()
	if err := runtimehooksv1.AddToCatalog(c); err != nil {
		panic(fmt.Sprintf("register Cluster API runtime hooks: %v", err))
	}
	gvh, err := c.GroupVersionHook(hook)
	if err != nil {
		panic(fmt.Sprintf("look up hook %s: %v", runtimecatalog.HookName(hook), err))
	}
	return runtimecatalog.GVHToPath(gvh, handler)
}

// answerServer writes each case's answer bytes as they are, routing by the
// first segment of the path, and counts what it was asked.
type answerServer struct {
	cases map[string]answerCase

	mu       sync.Mutex
	calls    map[string]int // by "<case> <hook path>"
	unrouted []string       // paths no case answers, which a test must fail on
}

var _ http.Handler = &answerServer{}

func newAnswerServer(cases []answerCase) *answerServer {
	s := &answerServer{cases: map[string]answerCase{}, calls: map[string]int{}}
	for _, c := range cases {
		s.cases[c.name] = c
	}
	return s
}

func (s *answerServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	c, known := s.cases[name]
	var a answer
	switch hook := "/" + rest; {
	case known && hook == discoveryHookPath:
		a = c.discovery
	case known && hook == discoverVariablesHookPath:
		a = c.discoverVariables
	default:
		s.mu.Lock()
		s.unrouted = append(s.unrouted, r.URL.Path)
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.calls[name+" /"+rest]++
	s.mu.Unlock()
	code := a.code
	if code == 0 {
		code = http.StatusOK
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(a.body))
}

// variablesCalls is how often the case's DiscoverVariables handler was
// called.
func (s *answerServer) variablesCalls(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[name+" "+discoverVariablesHookPath]
}

// strays are the paths asked for that no case answers, sorted.
func (s *answerServer) strays() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]string(nil), s.unrouted...)
	sort.Strings(out)
	return out
}

// newAnswerFixture is one ExtensionConfig per case, at server's URL
// followed by /<case>, admitting every namespace (an explicit {}), and one
// ClusterClass per case in answersNamespace, whose one patch takes
// variables from the case's discover-variables handler and patches from
// its generate-patches one. Settled is where r's client leaves them.
func newAnswerFixture(server Endpoint, cases []answerCase, r answerReader) *Fixture {
	f := &Fixture{Settled: map[string]metav1.ConditionStatus{}, RefusedByBaseline: map[string]bool{}}
	f.Namespaces = []*corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: answersNamespace}}}
	for _, k := range templateKinds {
		f.CRDs = append(f.CRDs, minimalclass.CRD(k))
		f.Templates = append(f.Templates, minimalclass.Template(answersNamespace, k, "default"))
	}
	for _, c := range cases {
		f.ExtensionConfigs = append(f.ExtensionConfigs,
			extensionConfig(c.name, Endpoint{URL: server.URL + "/" + c.name, CA: server.CA}, &metav1.LabelSelector{}))
		cc := clusterClass(answersNamespace, c.name, "default")
		cc.Spec.Patches = []clusterv1.ClusterClassPatch{{Name: "answers", External: &clusterv1.ExternalPatchDefinition{
			GeneratePatchesExtension:   registration.FullHandlerName(sampleextension.GeneratePatchesHandler, c.name),
			DiscoverVariablesExtension: registration.FullHandlerName(sampleextension.DiscoverVariablesHandler, c.name),
		}}}
		f.ClusterClasses = append(f.ClusterClasses, cc)
		discovered, ready := c.settled(r)
		f.Settled["/"+c.name] = discovered
		f.Settled[answersNamespace+"/"+c.name] = ready
	}
	return f
}
