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

package nodehost

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// Commands the node needs from the machine's packages: iproute2 and
// util-linux for the namespaces, runc (Debian's) to run containers, and
// iptables for kube-proxy and the portmap plugin.
var commands = []struct{ name, pkg string }{
	{"ip", "iproute2"},
	{"nsenter", "util-linux"},
	{"unshare", "util-linux"},
	{"runc", "runc"},
	{"iptables", "iptables"},
	{"iptables-restore", "iptables"},
}

// Preflight fails at once, naming what is missing, when this machine
// cannot run the node: root, cgroup v1 hierarchies kubelet checks, the
// overlay filesystem containerd unpacks images with, /dev/kmsg (kubelet's
// OOM watcher), network namespaces, and the commands.
func Preflight(name string) error {
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (kubelet, containerd and the network namespace need it; run as root)")
	}
	for _, h := range []string{"cpu", "cpuacct", "cpuset", "memory", "pids"} {
		if _, err := os.Stat(filepath.Join(cgroupMount, h, "cgroup.procs")); err != nil {
			missing = append(missing, "the cgroup v1 hierarchy "+h+" mounted at "+filepath.Join(cgroupMount, h))
		}
	}
	if data, err := os.ReadFile("/proc/filesystems"); err != nil || !strings.Contains(string(data), "\toverlay\n") {
		missing = append(missing, "the overlay filesystem in the kernel (/proc/filesystems)")
	}
	if _, err := os.Stat("/dev/kmsg"); err != nil {
		missing = append(missing, "/dev/kmsg")
	}
	if _, err := os.Stat("/proc/self/ns/net"); err != nil {
		missing = append(missing, "network namespaces in the kernel")
	}
	for _, c := range commands {
		if _, err := exec.LookPath(c.name); err != nil {
			missing = append(missing, fmt.Sprintf("the command %s (Debian package %s: make node-packages)", c.name, c.pkg))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("this machine cannot run node %s; it lacks: %s", name, strings.Join(missing, "; "))
	}
	return nil
}

// CheckFreeSpace fails when dir's filesystem has less than want bytes
// free: containerd cannot unpack an image, and kubelet would evict, on a
// full disk.
func CheckFreeSpace(dir string, want uint64) error {
	var st syscall.Statfs_t
	for d := dir; ; d = filepath.Dir(d) {
		err := syscall.Statfs(d, &st)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.ENOENT) || d == "/" {
			return err
		}
	}
	if free := st.Bavail * uint64(st.Bsize); free < want {
		return fmt.Errorf("%s has %d MiB free; the node needs %d MiB", dir, free>>20, want>>20)
	}
	return nil
}
