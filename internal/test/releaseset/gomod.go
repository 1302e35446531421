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
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
)

// Required returns the modules a released module's go.mod requires, and at
// which versions, read by the go command in dir (a module that requires
// it, so that its go.mod is in the module cache): `go list -m` finds the
// file, `go mod edit -json` parses it. A module required through a replace
// by a folder of the release's own tree (Cluster API replaces its api
// module with ./api) is at the release's version.
func Required(dir, module string) (map[string]string, error) {
	list := exec.Command("go", "list", "-m", "-f", "{{.Version}} {{.GoMod}}", module)
	list.Dir = dir
	out, err := list.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m %s in %s: %w", module, dir, commandError(err))
	}
	version, goMod, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok || goMod == "" {
		return nil, fmt.Errorf("go list -m %s in %s names no go.mod: %q", module, dir, out)
	}
	parsed, err := ReadGoMod(dir, goMod)
	if err != nil {
		return nil, err
	}
	inTree := map[string]bool{}
	for _, r := range parsed.Replace {
		if r.New.Version == "" && strings.HasPrefix(r.New.Path, "./") {
			inTree[r.Old.Path] = true
		}
	}
	required := map[string]string{module: version}
	for _, r := range parsed.Require {
		required[r.Path] = r.Version
		if inTree[r.Path] {
			required[r.Path] = version
		}
	}
	return required, nil
}

// GoMod is what `go mod edit -json` reads of a go.mod: its requirements
// and replacements.
type GoMod struct {
	Require []struct{ Path, Version string }
	Replace []struct {
		Old struct{ Path string }
		New struct{ Path, Version string }
	}
}

// ReadGoMod parses the go.mod at path (relative to dir) with the go command.
func ReadGoMod(dir, path string) (*GoMod, error) {
	edit := exec.Command("go", "mod", "edit", "-json", path)
	edit.Dir = dir
	out, err := edit.Output()
	if err != nil {
		return nil, fmt.Errorf("go mod edit -json %s: %w", path, commandError(err))
	}
	parsed := &GoMod{}
	if err := json.Unmarshal(out, parsed); err != nil {
		return nil, fmt.Errorf("parse go mod edit -json of %s: %w", path, err)
	}
	return parsed, nil
}

func commandError(err error) error {
	if exit, ok := err.(*exec.ExitError); ok && len(exit.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(exit.Stderr)))
	}
	return err
}
