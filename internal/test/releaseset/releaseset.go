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

package releaseset

import (
	"debug/buildinfo"
	"fmt"
	"runtime/debug"
	"sort"
)

// Modules maps each module a binary links to the version it was built at:
// a module replaced by another version of itself counts at that version,
// one replaced by another module (a fork) as "=> ", its path and version,
// one replaced by a folder as "=> " and the folder, and the binary's main
// module at its own version.
func Modules(info *buildinfo.BuildInfo) map[string]string {
	modules := map[string]string{}
	if info.Main.Path != "" {
		modules[info.Main.Path] = effectiveVersion(&info.Main)
	}
	for _, dep := range info.Deps {
		modules[dep.Path] = effectiveVersion(dep)
	}
	return modules
}

func effectiveVersion(m *debug.Module) string {
	if m.Replace == nil {
		return m.Version
	}
	switch {
	case m.Replace.Version == "":
		return "=> " + m.Replace.Path
	case m.Replace.Path != m.Path:
		return "=> " + m.Replace.Path + " " + m.Replace.Version
	}
	return m.Replace.Version
}

// Extra is a module a shipped binary may link although Cluster API's core
// manager does not, and why.
type Extra struct {
	Module string
	Reason string
}

// Compare returns, in module order, every way shipped departs from
// reference: a module both link at different versions, and a module only
// shipped links that extras does not list. An entry of extras that names a
// module shipped no longer links is reported too, so that the list stays
// as short as what needs it.
func Compare(reference, shipped map[string]string, extras []Extra) []string {
	allowed := map[string]bool{}
	for _, e := range extras {
		allowed[e.Module] = true
	}
	var differences []string
	for _, module := range sortedKeys(shipped) {
		version := shipped[module]
		want, shared := reference[module]
		switch {
		case shared && version != want:
			differences = append(differences, fmt.Sprintf("%s is at %s here and at %s in Cluster API's release", module, version, want))
		case !shared && !allowed[module]:
			differences = append(differences, fmt.Sprintf("%s %s is linked, but not by Cluster API's core manager, and the allow-list of extra modules does not name it", module, version))
		}
	}
	for _, e := range extras {
		if _, linked := shipped[e.Module]; !linked {
			differences = append(differences, fmt.Sprintf("the allow-list names %s, which is no longer linked: remove it", e.Module))
		}
	}
	return differences
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
