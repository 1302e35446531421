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

package localclustertest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/toolbin"
)

// KillAPIServer kills c's kube-apiserver at once (SIGKILL), as a crash or
// an OOM kill would, leaving etcd and the data in place; c.StartAPIServer
// brings it back. Unlike c.StopAPIServer it does not wait for the graceful
// shutdown, which holds on to open watches for up to a minute.
func KillAPIServer(c *localcluster.Cluster) error {
	pidPath := filepath.Join(c.Dir(), "run", toolbin.KubeAPIServer+".pid")
	data, err := os.ReadFile(pidPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil // not running: a stop removes the file
	}
	if err != nil {
		return err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return fmt.Errorf("%s does not hold a process id: %q", pidPath, data)
	}
	// A pid file outlives a kube-apiserver that exited by itself, and its
	// number can be reused: only the kube-apiserver serving this data
	// directory's certificate is killed. One that has ended already (a
	// zombie has no command line) is left to the stop below.
	cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if bytes.Contains(cmdline, []byte(filepath.Join(c.Dir(), "pki")+string(filepath.Separator))) {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("kill %s (pid %d): %w", toolbin.KubeAPIServer, pid, err)
		}
	}
	// Stopping a process that is gone only waits until it has been reaped
	// and removes its pid file, so that StartAPIServer finds its port free.
	return c.StopAPIServer()
}
