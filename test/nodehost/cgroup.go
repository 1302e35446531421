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
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// cgroupMount is where this machine mounts its cgroup v1 hierarchies, one
// folder each, and the v2 one at unified/.
const cgroupMount = "/sys/fs/cgroup"

// hierarchies lists the mounted cgroup hierarchies.
func hierarchies() ([]string, error) {
	entries, err := os.ReadDir(cgroupMount)
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(cgroupMount, e.Name()))
		}
	}
	return dirs, nil
}

// makeCgroupRoot creates /name in every hierarchy: kubelet's cgroupRoot
// must exist in each before it starts, and the node's Pods live under it,
// so that clean-up finds every one of them there.
func makeCgroupRoot(name string) error {
	dirs, err := hierarchies()
	if err != nil {
		return err
	}
	for _, h := range dirs {
		dir := filepath.Join(h, name)
		// One left from an earlier node was removed by claim: one there now
		// is someone else's, whose processes clean-up would kill.
		if err := os.Mkdir(dir, 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("cgroup %s exists and is not this node's: remove it or name the node otherwise", dir)
			}
			return err
		}
		// A new cpuset starts with no CPU and no memory node, and takes
		// no task until given its parent's.
		if filepath.Base(h) == "cpuset" {
			for _, file := range []string{"cpuset.cpus", "cpuset.mems"} {
				value, err := os.ReadFile(filepath.Join(h, file))
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(dir, file), value, 0o644); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// cgroupDirs lists /name and everything under it, in every hierarchy,
// deepest first, so they can be removed in that order.
func cgroupDirs(name string) []string {
	hs, _ := hierarchies()
	var dirs []string
	for _, h := range hs {
		_ = filepath.WalkDir(filepath.Join(h, name), func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
	}
	slices.SortFunc(dirs, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	return dirs
}

// cgroupPIDs lists the processes in /name or below, in any hierarchy.
func cgroupPIDs(name string) []int {
	var pids []int
	for _, dir := range cgroupDirs(name) {
		f, err := os.Open(filepath.Join(dir, "cgroup.procs"))
		if err != nil {
			continue
		}
		scanner := bufio.NewScanner(f)
		for scanner.Scan() {
			if pid, err := strconv.Atoi(strings.TrimSpace(scanner.Text())); err == nil && !slices.Contains(pids, pid) {
				pids = append(pids, pid)
			}
		}
		f.Close()
	}
	return pids
}

// removeCgroups removes the cgroup folders that hold no process, deepest
// first, and returns those it could not.
func removeCgroups(name string) []string {
	var left []string
	for _, dir := range cgroupDirs(name) {
		if err := syscall.Rmdir(dir); err != nil && !errors.Is(err, syscall.ENOENT) {
			left = append(left, dir+" ("+err.Error()+")")
		}
	}
	return left
}
