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

package ociimagetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Module is the module path the programs are built in, as their build
// information (and so an SBOM of them) names it.
const Module = "example.test/stand-in"

// StaticPrograms builds StaticProgram for each platform and returns them
// by platform (os/arch[/variant]). A cold Go build cache compiles the
// runtime once per architecture (about 10 s each on two cores); later
// runs take about a second in all.
func StaticPrograms(t testing.TB, dir, name string, platforms []v1.Platform) map[string]string {
	t.Helper()
	programs := map[string]string{}
	for _, p := range platforms {
		programs[p.String()] = StaticProgram(t, dir, name, p)
	}
	return programs
}

// StaticProgram builds a small static Go program for p into dir, named
// NAME-os-arch[-variant], as the release cross-builds (CGO_ENABLED=0,
// -trimpath, GOARM from the variant), and returns its path.
func StaticProgram(t testing.TB, dir, name string, p v1.Platform) string {
	t.Helper()
	src := filepath.Join(dir, "src-"+name)
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod":  "module " + Module + "\n\ngo 1.26\n",
		"main.go": "package main\n\nfunc main() { println(\"" + name + "\") }\n",
	}
	for file, content := range files {
		if err := os.WriteFile(filepath.Join(src, file), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, name+"-"+strings.ReplaceAll(p.String(), "/", "-"))
	build := exec.Command("go", "build", "-trimpath", "-o", out, ".")
	build.Dir = src
	build.Env = append(os.Environ(), buildEnv(p)...)
	if printed, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build for %s: %v\n%s", p, err, printed)
	}
	return out
}

// buildEnv is how the release cross-builds for p.
func buildEnv(p v1.Platform) []string {
	env := []string{"CGO_ENABLED=0", "GOOS=" + p.OS, "GOARCH=" + p.Architecture, "GOFLAGS=-buildvcs=false"}
	if p.Architecture == "arm" {
		env = append(env, "GOARM="+strings.TrimPrefix(p.Variant, "v"))
	}
	return env
}
