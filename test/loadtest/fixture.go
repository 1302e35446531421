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

package loadtest

import (
	"context"
	"fmt"
	"maps"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/benchfixture"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// tierLabel splits namespaces into tiers "a" and "b"; configs with a
// selector admit one tier.
const tierLabel = benchfixture.TierLabel

type configFixture struct {
	name      string
	extension *sampleextension.Running
	stop      func()
	selector  *metav1.LabelSelector
	// variables are the names its extension's DiscoverVariables answers.
	variables []string
}

type classFixture struct {
	namespace, name string
	configs         []int
}

type fixture struct {
	scenario   Scenario
	namespaces map[string]map[string]string
	configs    []*configFixture
	classes    []classFixture
}

func newFixture(s Scenario, run string) (*fixture, error) {
	f := &fixture{scenario: s, namespaces: map[string]map[string]string{}}
	for i := range s.Namespaces {
		f.namespaces[fmt.Sprintf("%s-ns-%d", run, i)] = map[string]string{tierLabel: benchfixture.Tier(i)}
	}
	withSelector := int(float64(s.ExtensionConfigs) * s.SelectorShare)
	for i := range s.ExtensionConfigs {
		c := &configFixture{name: fmt.Sprintf("%s-ext-%d", run, i), variables: []string{"size"}}
		// The most popular configs (low indexes) stay open; selectors sit
		// on the tail, as they do on real clusters.
		if i >= s.ExtensionConfigs-withSelector {
			c.selector = tierSelector("a")
		}
		srv := sampleextension.New(sampleextension.Options{Variables: map[string][]clusterv1.ClusterClassVariable{
			sampleextension.DiscoverVariablesHandler: stringVariables(c.variables),
		}})
		url, ca, stop, err := sampleextension.StartTLS(srv)
		if err != nil {
			f.stop()
			return nil, err
		}
		c.extension = &sampleextension.Running{Server: srv, URL: url, CA: ca}
		c.stop = stop
		f.configs = append(f.configs, c)
	}
	for i, refs := range s.references() {
		f.classes = append(f.classes, classFixture{
			namespace: fmt.Sprintf("%s-ns-%d", run, i%s.Namespaces),
			name:      fmt.Sprintf("cc-%d", i),
			configs:   refs,
		})
	}
	return f, nil
}

// answerVariables makes config i's extension answer DiscoverVariables with
// names from now on, behind the same registration.
func (f *fixture) answerVariables(i int, names ...string) {
	f.configs[i].variables = names
	f.configs[i].extension.Server.SetVariables(sampleextension.DiscoverVariablesHandler, stringVariables(names))
}

func stringVariables(names []string) []clusterv1.ClusterClassVariable {
	vars := make([]clusterv1.ClusterClassVariable, 0, len(names))
	for _, name := range names {
		vars = append(vars, stringVariable(name))
	}
	return vars
}

func (f *fixture) stop() {
	for _, c := range f.configs {
		if c.stop != nil {
			c.stop()
		}
	}
}

var (
	tierSelector   = benchfixture.TierSelector
	stringVariable = benchfixture.StringVariable
)

func (f *fixture) extensionConfig(i int) *runtimev1.ExtensionConfig {
	c := f.configs[i]
	selector := c.selector.DeepCopy()
	if selector == nil {
		// Cluster API's defaulting webhook writes the empty selector, which
		// admits every namespace; its controllers read a missing one as
		// admitting none, and no webhook runs here.
		selector = &metav1.LabelSelector{}
	}
	return &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: c.name},
		Spec: runtimev1.ExtensionConfigSpec{
			ClientConfig:      runtimev1.ClientConfig{URL: c.extension.URL, CABundle: c.extension.CA},
			NamespaceSelector: selector,
		},
	}
}

func (f *fixture) clusterClass(cf classFixture) *clusterv1.ClusterClass {
	configs := make([]string, 0, len(cf.configs))
	for _, i := range cf.configs {
		configs = append(configs, f.configs[i].name)
	}
	return benchfixture.ClusterClass(cf.namespace, cf.name, map[string]string{"flavour": "default"}, configs...)
}

// create writes every object, ClusterClasses with a few workers.
func (f *fixture) create(ctx context.Context, c client.Client) error {
	for name, labels := range f.namespaces {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}); err != nil {
			return fmt.Errorf("create namespace %s: %w", name, err)
		}
	}
	for i := range f.configs {
		if err := c.Create(ctx, f.extensionConfig(i)); err != nil {
			return fmt.Errorf("create ExtensionConfig %s: %w", f.configs[i].name, err)
		}
	}
	return benchfixture.CreateClusterClasses(ctx, c, len(f.classes), func(i int) *clusterv1.ClusterClass {
		return f.clusterClass(f.classes[i])
	})
}

// admitted reports whether config i admits namespace ns with labels.
func (f *fixture) admitted(i int, labels map[string]string) bool {
	ok, _ := admitsSelector(f.configs[i].selector, labels)
	return ok
}

// admittedEverywhere reports whether every config cf references admits
// its namespace.
func (f *fixture) admittedEverywhere(cf classFixture) bool {
	for _, i := range cf.configs {
		if !f.admitted(i, f.namespaces[cf.namespace]) {
			return false
		}
	}
	return true
}

// referencers returns the ClusterClasses referencing config i.
func (f *fixture) referencers(i int) []classFixture {
	var out []classFixture
	for _, cf := range f.classes {
		for _, c := range cf.configs {
			if c == i {
				out = append(out, cf)
				break
			}
		}
	}
	return out
}

// mostPopular returns config indexes by referencer count, highest first.
func (f *fixture) mostPopular() []int {
	counts := make([]int, len(f.configs))
	for _, cf := range f.classes {
		for _, c := range cf.configs {
			counts[c]++
		}
	}
	order := make([]int, len(f.configs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return counts[order[a]] > counts[order[b]] })
	return order
}

// admitsSelector reads a nil fixture selector as the {} it is written as.
func admitsSelector(selector *metav1.LabelSelector, labels map[string]string) (bool, error) {
	if selector == nil {
		selector = &metav1.LabelSelector{}
	}
	return registration.Admits(selector, labels)
}

// anyAdmitted reports whether config i admits any referencer's namespace.
func (f *fixture) anyAdmitted(i int) bool {
	for _, cf := range f.referencers(i) {
		if f.admitted(i, f.namespaces[cf.namespace]) {
			return true
		}
	}
	return false
}

// flipNamespace switches the first namespace's tier and returns its name.
func (f *fixture) flipNamespace() string {
	name := f.classes[0].namespace
	labels := maps.Clone(f.namespaces[name])
	labels[tierLabel] = benchfixture.OtherTier(labels[tierLabel])
	f.namespaces[name] = labels
	return name
}

// namespaceFlipOptimum counts the ClusterClasses in the namespace about to
// flip whose referenced configs change their admission, and the calls for
// configs that newly admit a namespace without a known answer.
func (f *fixture) namespaceFlipOptimum() (reconciles, calls int) {
	name := f.classes[0].namespace
	old := f.namespaces[name]
	flipped := maps.Clone(old)
	flipped[tierLabel] = benchfixture.OtherTier(flipped[tierLabel])
	needCall := map[int]bool{}
	for _, cf := range f.classes {
		if cf.namespace != name {
			continue
		}
		affected := false
		for _, i := range cf.configs {
			before, _ := admitsSelector(f.configs[i].selector, old)
			after, _ := admitsSelector(f.configs[i].selector, flipped)
			if before != after {
				affected = true
			}
			if after && !before && !f.anyAdmitted(i) {
				needCall[i] = true
			}
		}
		if affected {
			reconciles++
		}
	}
	return reconciles, len(needCall)
}
