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

package node

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// StopAPIServer stops kube-apiserver (SIGTERM, as a restart of its static
// Pod would) and leaves etcd and every other component running, so that a
// test can watch them ride out a control plane restart.
func (n *Node) StopAPIServer() error { return n.cluster.StopAPIServer() }

// StartAPIServer starts kube-apiserver again with the arguments it first
// started with, against the same etcd, and waits until it is ready.
func (n *Node) StartAPIServer(ctx context.Context) error { return n.cluster.StartAPIServer(ctx) }

// KillContainer sends sig to a container's first process, the one its
// image runs, from the host: containerd's record of the container's task
// gives its PID in the host's PID namespace. containerID is as kubelet
// reports it (containerd://ID). It returns the PID, after checking that
// the process runs want, the container's command.
func (n *Node) KillContainer(containerID, want string, sig syscall.Signal) (int, error) {
	id, ok := strings.CutPrefix(containerID, "containerd://")
	if !ok {
		return 0, fmt.Errorf("container %q is not containerd's", containerID)
	}
	pid, err := n.taskPID(id)
	if err != nil {
		return 0, err
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return 0, fmt.Errorf("container %s: process %d: %w", id, pid, err)
	}
	if got, _, _ := strings.Cut(string(cmdline), "\x00"); got != want {
		return 0, fmt.Errorf("container %s: process %d runs %q, want %q", id, pid, got, want)
	}
	return pid, syscall.Kill(pid, sig)
}

// taskPID reads the PID of a container's task from `ctr task ls`, which
// prints TASK PID STATUS.
func (n *Node) taskPID(id string) (int, error) {
	out, err := n.ctr("task", "ls")
	if err != nil {
		return 0, fmt.Errorf("list containerd's tasks: %v: %s", err, out)
	}
	for _, line := range strings.Split(out, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 3 || fields[0] != id {
			continue
		}
		if fields[2] != "RUNNING" {
			return 0, fmt.Errorf("container %s's task is %s", id, fields[2])
		}
		return strconv.Atoi(fields[1])
	}
	return 0, errors.New("containerd has no task for container " + id)
}
