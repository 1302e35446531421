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
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cleanTimeout bounds the clean-up: killed processes leave their cgroups
// within milliseconds, so a longer wait means something holds on.
const cleanTimeout = time.Minute

// Clean removes everything a node recorded in stateDir left: it kills
// every process in the node's network namespace or cgroup root (kubelet's
// Pods, containerd's shims, whatever the inside program did not stop),
// removes the cgroups, deletes the namespace (and with its last process
// the node's mount namespace and every mount in it), and puts back the
// machine-wide sysctls kubelet changed. It then checks what is still there and
// returns what is left, if anything. With no record, it does nothing.
func Clean(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	rec, err := readRecord(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	deadline := time.Now().Add(cleanTimeout)
	// The recorded namespace is the node's only while its name still
	// leads to it: once deleted, its inode can be another namespace's.
	if !netnsIs(name, rec.NetnsInode) {
		rec.NetnsInode = 0
	}
	if pids := nodePIDs(name, rec); len(pids) > 0 {
		fmt.Fprintf(os.Stderr, "node %s: killing %d processes its stop left: %s\n", name, len(pids), describe(pids))
	}
	if err := killUntilGone(func() []int { return nodePIDs(name, rec) }, cleanTimeout); err != nil {
		errs = append(errs, err)
	}
	for {
		left := removeCgroups(name)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			errs = append(errs, fmt.Errorf("cgroups not removed: %s", strings.Join(left, ", ")))
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(netnsPath(name)); err == nil {
		if out, err := exec.Command("ip", "netns", "del", name).CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("ip netns del %s: %v: %s", name, err, strings.TrimSpace(string(out))))
		}
	}
	if mounts := mountsUnder(RunDir(name)); len(mounts) == 0 {
		if err := os.RemoveAll(RunDir(name)); err != nil {
			errs = append(errs, err)
		}
	}
	for _, path := range rec.Absent {
		// Remove only what is still an empty folder: nothing of anyone's.
		if err := syscall.Rmdir(path); err != nil && !errors.Is(err, syscall.ENOENT) {
			errs = append(errs, fmt.Errorf("remove %s, which the node made: %w", path, err))
		}
	}
	for key, value := range rec.Sysctls {
		if err := os.WriteFile(sysctlPath(key), []byte(value), 0o644); err != nil {
			errs = append(errs, fmt.Errorf("restore %s=%s: %w", key, value, err))
		}
	}
	if left := leftovers(name, rec); len(left) > 0 {
		errs = append(errs, fmt.Errorf("node %s left: %s", name, strings.Join(left, "; ")))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return os.Remove(recordPath(name))
}

// netnsIs reports whether the namespace named name is the one of inode.
func netnsIs(name string, inode uint64) bool {
	var st syscall.Stat_t
	return inode != 0 && syscall.Stat(netnsPath(name), &st) == nil && st.Ino == inode
}

// KillPods kills every process in the node's cgroup root, which holds
// every container kubelet started, and waits until they are gone: the
// inside program's stop, once kubelet no longer runs to stop them.
func KillPods(name string) error {
	return killUntilGone(func() []int { return cgroupPIDs(name) }, 30*time.Second)
}

// killUntilGone sends SIGKILL to every process list returns until it
// returns none (a process can fork while its siblings die), or within
// passes.
func killUntilGone(list func() []int, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		pids := list()
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes still alive %s after SIGKILL: %v", within, pids)
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// nodePIDs lists the processes in the node's cgroup root, or in the
// namespace of rec.NetnsInode (zero when it may not be the node's), never
// this one.
func nodePIDs(name string, rec *record) []int {
	pids := cgroupPIDs(name)
	if rec.NetnsInode != 0 {
		for _, pid := range pidsIn(rec.NetnsInode) {
			if !slices.Contains(pids, pid) {
				pids = append(pids, pid)
			}
		}
	}
	return slices.DeleteFunc(pids, func(pid int) bool { return pid == os.Getpid() })
}

// leftovers says what of the node is still on the machine: processes in
// its network namespace or cgroups, cgroup folders, the namespace, mounts
// under its data folder or of the namespace, network interfaces the host
// did not have, and sysctls not put back.
func leftovers(name string, rec *record) []string {
	var left []string
	if pids := nodePIDs(name, rec); len(pids) > 0 {
		left = append(left, fmt.Sprintf("processes %v", pids))
	}
	if dirs := cgroupDirs(name); len(dirs) > 0 {
		left = append(left, "cgroups "+strings.Join(dirs, ", "))
	}
	if _, err := os.Stat(netnsPath(name)); err == nil {
		left = append(left, "network namespace "+netnsPath(name))
	}
	if _, err := os.Stat(RunDir(name)); err == nil {
		left = append(left, "folder "+RunDir(name))
	}
	if mounts := mountsUnder(rec.Dir, RunDir(name), netnsPath(name)); len(mounts) > 0 {
		left = append(left, "mounts "+strings.Join(mounts, ", "))
	}
	if interfaces, err := net.Interfaces(); err == nil {
		for _, i := range interfaces {
			if !slices.Contains(rec.Interfaces, i.Name) {
				left = append(left, "network interface "+i.Name)
			}
		}
	}
	for _, path := range rec.Absent {
		if _, err := os.Lstat(path); err == nil {
			left = append(left, path+", which the node made")
		}
	}
	for key, value := range rec.Sysctls {
		now, err := os.ReadFile(sysctlPath(key))
		if err == nil && strings.TrimSpace(string(now)) != value {
			left = append(left, fmt.Sprintf("sysctl %s=%s (was %s)", key, strings.TrimSpace(string(now)), value))
		}
	}
	return left
}

// describe names processes by pid and command, for a log line.
func describe(pids []int) string {
	names := make([]string, 0, len(pids))
	for _, pid := range pids {
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		names = append(names, fmt.Sprintf("%d %s", pid, strings.TrimSpace(string(comm))))
	}
	return strings.Join(names, ", ")
}

// mountsUnder lists the host's mount points at or below any of prefixes.
func mountsUnder(prefixes ...string) []string {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return []string{"cannot read /proc/self/mountinfo: " + err.Error()}
	}
	var found []string
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 5 {
			continue
		}
		point := unescapeMountPath(fields[4])
		for _, prefix := range prefixes {
			if prefix != "" && (point == prefix || strings.HasPrefix(point, strings.TrimSuffix(prefix, "/")+"/")) {
				found = append(found, point)
			}
		}
	}
	return found
}

// unescapeMountPath undoes mountinfo's octal escapes (\040 for a space).
func unescapeMountPath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
