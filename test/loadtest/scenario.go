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
	"fmt"
	"math/rand/v2"
)

// Scenario is the shape of a management cluster to load.
type Scenario struct {
	Name string `json:"name"`
	// ClusterClasses, ExtensionConfigs and Namespaces are the object counts.
	ClusterClasses   int `json:"clusterClasses"`
	ExtensionConfigs int `json:"extensionConfigs"`
	Namespaces       int `json:"namespaces"`
	// RefsPerClass is how many distinct configs each ClusterClass uses.
	RefsPerClass int `json:"refsPerClass"`
	// SelectorShare is the share of configs with a namespaceSelector.
	SelectorShare float64 `json:"selectorShare"`
	// Seed makes the reference spread repeatable.
	Seed uint64 `json:"seed"`
}

// SeedScenario is the example of Cluster API's original report: 10
// ClusterClasses, each referencing 2 of 20 ExtensionConfigs.
func SeedScenario() Scenario {
	return Scenario{Name: "seed", ClusterClasses: 10, ExtensionConfigs: 20, Namespaces: 2, RefsPerClass: 2, SelectorShare: 0.2, Seed: 1}
}

// ScaleScenario is N ClusterClasses over M configs in K namespaces.
func ScaleScenario(n, m, k int, selectorShare float64) Scenario {
	return Scenario{Name: fmt.Sprintf("scale-%d", n), ClusterClasses: n, ExtensionConfigs: m, Namespaces: k, RefsPerClass: 2, SelectorShare: selectorShare, Seed: 1}
}

// Validate rejects scenarios the fixture cannot build.
func (s Scenario) Validate() error {
	switch {
	case s.ClusterClasses < 1 || s.ExtensionConfigs < 2 || s.Namespaces < 1:
		return fmt.Errorf("scenario %s: need at least 1 ClusterClass, 2 ExtensionConfigs and 1 namespace", s.Name)
	case s.RefsPerClass < 1 || s.RefsPerClass > s.ExtensionConfigs:
		return fmt.Errorf("scenario %s: refs per ClusterClass must be 1..%d", s.Name, s.ExtensionConfigs)
	case s.SelectorShare < 0 || s.SelectorShare > 1:
		return fmt.Errorf("scenario %s: selector share must be within 0..1", s.Name)
	}
	return nil
}

// references spreads each ClusterClass's references over the configs like
// real clusters do: a few popular extensions and a long tail (Zipf).
func (s Scenario) references() [][]int {
	r := rand.New(rand.NewPCG(s.Seed, 0))
	zipf := rand.NewZipf(r, 1.3, 2, uint64(s.ExtensionConfigs-1))
	refs := make([][]int, s.ClusterClasses)
	for i := range refs {
		seen := map[int]bool{}
		for len(refs[i]) < s.RefsPerClass {
			c := int(zipf.Uint64())
			if seen[c] {
				// Fall through to the next config so the loop ends even
				// when the popular head is exhausted.
				c = (c + 1 + i) % s.ExtensionConfigs
				if seen[c] {
					continue
				}
			}
			seen[c] = true
			refs[i] = append(refs[i], c)
		}
	}
	return refs
}
