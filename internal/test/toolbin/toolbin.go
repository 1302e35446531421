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

package toolbin

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// DirEnv overrides where the binaries are looked up; the Makefile sets it.
const DirEnv = "RSC_BIN_DIR"

// Names of the binaries the control plane needs.
const (
	KubeAPIServer = "kube-apiserver"
	Etcd          = "etcd"
)

// Dir returns the directory holding the tool binaries: $RSC_BIN_DIR when
// set, otherwise bin/ at the project root, the first directory above the
// working directory with both a go.mod and the Makefile (tests run in their
// package's directory, perhaps in a nested module, so we walk up).
func Dir() (string, error) {
	if dir := os.Getenv(DirEnv); dir != "" {
		return filepath.Abs(dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && isProjectRoot(dir) {
			return filepath.Join(dir, "bin"), nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("no project root above %s: set %s to the directory `make tools` builds into", wd, DirEnv)
		}
	}
}

// isProjectRoot tells the main module from the nested tool modules, whose
// go.mod files would otherwise stop the walk too early.
func isProjectRoot(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "Makefile"))
	return err == nil
}

// Check returns an error naming the binary and `make tools` when dir/name is
// missing, not executable, or fails to print its version.
func Check(dir, name string) error {
	path := filepath.Join(dir, name)
	info, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s is missing: build it with `make tools`", path)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if info.IsDir() || info.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file: rebuild it with `rm %s && make tools`", path, path)
	}
	out, err := exec.Command(path, "--version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s does not run (%v: %s): rebuild it with `rm %s && make tools`", path, err, firstLine(out), path)
	}
	return nil
}

// CheckAll runs Check for each name and returns the first failure.
func CheckAll(dir string, names ...string) error {
	for _, name := range names {
		if err := Check(dir, name); err != nil {
			return err
		}
	}
	return nil
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(bytes.TrimSpace(b), []byte("\n"))
	return string(line)
}
