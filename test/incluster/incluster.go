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

package incluster

import (
	"errors"
	"os"
	"path/filepath"
)

// ErrNotRoot is returned where a private mount namespace cannot be made.
var ErrNotRoot = errors.New("a private mount namespace needs root")

// Script writes, into dir, a script that runs binary with the arguments
// it is given inside a private mount namespace where
// /run/secrets/kubernetes.io/serviceaccount/namespace (where /var/run
// points) holds namespace, and returns its path. The mount is a tmpfs over
// /run that exists only for the process, so nothing is left on the host,
// and every exec keeps the process id, so a signal to it reaches the
// manager. The tmpfs hides the host's /run, which a manager that reaches
// everything on 127.0.0.1 does not need.
func Script(dir, binary, namespace string) (string, error) {
	return write(filepath.Join(dir, "in-cluster-"+filepath.Base(binary)), namespace, binary+` "$@"`)
}

// Launcher is Script for any binary: it runs its first argument with the
// rest, so that the binary stays the caller's choice.
func Launcher(dir, namespace string) (string, error) {
	return write(filepath.Join(dir, "in-cluster"), namespace, `"$@"`)
}

// write writes the script that runs command with namespace mounted.
func write(path, namespace, command string) (string, error) {
	if os.Geteuid() != 0 {
		return "", ErrNotRoot
	}
	body := `#!/bin/sh
exec unshare --mount --propagation private -- sh -c '
mount -t tmpfs -o size=1m tmpfs /run &&
mkdir -p /run/secrets/kubernetes.io/serviceaccount &&
printf %s "$0" > /run/secrets/kubernetes.io/serviceaccount/namespace &&
exec "$@"' ` + namespace + ` ` + command + `
`
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		return "", err
	}
	return path, nil
}
