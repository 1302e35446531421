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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// InsideEnv is set, to the node's name, in the environment of the program
// Run starts inside the node.
const InsideEnv = "RSC_NODE_INSIDE"

// The node's addresses, inside its network namespace only.
const (
	// NodeIP is the node's InternalIP: kubelet refuses loopback.
	NodeIP = "10.250.0.2"
	// nodePrefix is NodeIP's network, on the veth end named nodeLink.
	nodePrefix = "/24"
	nodeLink   = "node0"
)

// stateDir holds, per node, the harness's pid file and what it changed
// on the host, so that a second start and a later clean-up find them.
const stateDir = "/run/rsc-node"

// minFreeSpace is what the node's images, snapshots and etcd need with
// room to spare.
const minFreeSpace = 4 << 30

// Options name the node.
type Options struct {
	// Name is the network namespace's name, the cgroup root's (/Name) and
	// the node's.
	Name string
	// Dir is the node's data folder; its mounts are checked after a stop.
	Dir string
	// Stdout and Stderr take the inside program's output.
	Stdout, Stderr io.Writer
	// StopGrace is how long the inside program gets, after SIGTERM, to stop
	// the node in order before what is left is killed.
	StopGrace time.Duration
}

// Inside reports whether this process was started by Run, and the node's
// name.
func Inside() (string, bool) {
	name := os.Getenv(InsideEnv)
	return name, name != ""
}

// record is what a running harness keeps in stateDir.
type record struct {
	PID     int       `json:"pid"`
	Dir     string    `json:"dir"`
	Started time.Time `json:"started"`
	// NetnsInode identifies the namespace: a process is the node's when
	// its /proc/PID/ns/net names this inode.
	NetnsInode uint64 `json:"netnsInode"`
	// Sysctls are values kubelet rewrites (kernel.panic,
	// kernel.panic_on_oops, vm.overcommit_memory), global to the machine,
	// as they were before the node started; they are put back after.
	Sysctls map[string]string `json:"sysctls"`
	// Interfaces are the host's network interfaces before the start.
	Interfaces []string `json:"interfaces"`
	// Absent are the paths of createdPaths that did not exist before the
	// start; Clean removes them again.
	Absent []string `json:"absent"`
}

// createdPaths are folders outside the node's own that the node makes on
// the host's filesystem: libcni's cache folder (a mount point in the
// node's mount namespace), and the Docker socket the Docker provider's
// Deployment mounts from the host, which containerd creates as an empty
// folder when it is missing (the in-memory backend never uses it).
var createdPaths = []string{"/var/lib/cni", "/run/docker.sock"}

func recordPath(name string) string { return filepath.Join(stateDir, name+".json") }

// RunDir is the node's folder for sockets and runtime state: short, since
// a unix socket's path is at most 108 bytes, and removed by Clean.
func RunDir(name string) string { return filepath.Join(stateDir, name) }

// Run checks the machine, creates the node's namespace and cgroup root,
// runs argv inside them with InsideEnv set, and when it ends (or ctx is
// done, or we get SIGINT or SIGTERM: it is sent SIGTERM and given
// StopGrace) removes everything the node left. The first error is the
// inside program's; the second says what the clean-up could not remove.
func Run(ctx context.Context, o Options, argv []string) (runErr, cleanErr error) {
	if o.StopGrace == 0 {
		o.StopGrace = 90 * time.Second
	}
	if err := checkName(o.Name); err != nil {
		return err, nil
	}
	if err := Preflight(o.Name); err != nil {
		return err, nil
	}
	if err := CheckFreeSpace(o.Dir, minFreeSpace); err != nil {
		return err, nil
	}
	lock, err := lockMachine()
	if err != nil {
		return err, nil
	}
	defer lock.Close()
	if err := claim(o.Name); err != nil {
		return err, nil
	}
	if err := freshDir(o.Dir); err != nil {
		return err, nil
	}
	if err := create(o.Name, o.Dir); err != nil {
		return err, Clean(o.Name)
	}

	cmd := exec.Command("nsenter", append([]string{"--net=" + netnsPath(o.Name), "--",
		"unshare", "--mount", "--propagation", "private", "--"}, argv...)...)
	cmd.Env = append(os.Environ(), InsideEnv+"="+o.Name)
	cmd.Stdout, cmd.Stderr = o.Stdout, o.Stderr
	// nsenter and unshare exec in place, so the signal set here reaches
	// the program itself if we die first. In a group of its own, a Ctrl-C
	// in the terminal reaches only us, and we ask it to stop in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(signals)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s inside node %s: %w", argv[0], o.Name, err), Clean(o.Name)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case runErr = <-done:
	case <-ctx.Done():
		runErr = stopInside(cmd, done, o.StopGrace)
	case <-signals:
		runErr = stopInside(cmd, done, o.StopGrace)
	}
	return runErr, Clean(o.Name)
}

// stopInside asks the inside program to stop the node, and kills it when
// it does not within grace.
func stopInside(cmd *exec.Cmd, done <-chan error, grace time.Duration) error {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		return err
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		return fmt.Errorf("the program inside the node did not stop within %s after SIGTERM and was killed (%w)", grace, <-done)
	}
}

// freshDir empties the node's data folder: every start begins from
// nothing, as a new machine does. It removes only a folder that is empty
// or that a node made (it holds dirMarker), and never one with mounts in
// it: removing through a mount would reach what it mounts.
func freshDir(dir string) error {
	if mounts := mountsUnder(dir); len(mounts) > 0 {
		return fmt.Errorf("the node's folder %s still has mounts (%s): not removing it", dir, strings.Join(mounts, ", "))
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if len(entries) > 0 {
		if _, err := os.Stat(filepath.Join(dir, dirMarker)); err != nil {
			return fmt.Errorf("the node's folder %s holds files no node made (no %s): name an empty or new folder", dir, dirMarker)
		}
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, dirMarker), []byte("a folder of the lab's real node (test/nodehost): emptied at each start\n"), 0o644)
}

// dirMarker marks a data folder as the node's.
const dirMarker = ".rsc-node"

// namePattern is what a node's name may be: it names a network namespace,
// a cgroup folder in every hierarchy and files in stateDir, which an empty
// name or a path would turn into the roots of each.
var namePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$`)

func checkName(name string) error {
	if !namePattern.MatchString(name) {
		return fmt.Errorf("node name %q: want lower-case letters, digits and dashes, at most 32, as %s", name, namePattern)
	}
	return nil
}

// lockMachine takes the machine's node lock, held until the returned file
// is closed (or the process dies). One node runs on a machine at a time:
// kubelet's sysctls, the host paths the node makes and the interfaces the
// clean-up compares are the machine's, not one node's. A second start
// fails, naming what runs.
func lockMachine() (*os.File, error) {
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(stateDir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("a node is up on this machine: %s; stop it first (Ctrl-C where it runs)", running())
		}
		return nil, err
	}
	return f, nil
}

// running describes the nodes stateDir records.
func running() string {
	paths, _ := filepath.Glob(filepath.Join(stateDir, "*.json"))
	var nodes []string
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		if rec, err := readRecord(name); err == nil {
			nodes = append(nodes, fmt.Sprintf("node %s, started %s by pid %d, data in %s", name, rec.Started.Format(time.RFC3339), rec.PID, rec.Dir))
		}
	}
	if len(nodes) == 0 {
		return "its harness holds " + filepath.Join(stateDir, "lock")
	}
	return strings.Join(nodes, "; ")
}

// claim cleans up after a node whose harness died without cleaning: with
// the machine's lock held, a record left is never a running node's.
func claim(name string) error {
	rec, err := readRecord(name)
	if errors.Is(err, os.ErrNotExist) {
		if _, statErr := os.Stat(netnsPath(name)); statErr == nil {
			return fmt.Errorf("network namespace %s exists but no node harness recorded it in %s: it is not ours to delete (ip netns del %s if it is a leftover)", name, stateDir, name)
		}
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "node %s: its harness (pid %d, started %s) is gone; removing what it left\n", name, rec.PID, rec.Started.Format(time.RFC3339))
	return Clean(name)
}

// create makes the namespace, its link and address, and the cgroup root,
// and records what it saw before.
func create(name, dir string) error {
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return err
	}
	rec := &record{PID: os.Getpid(), Dir: dir, Started: time.Now(), Sysctls: map[string]string{}}
	for _, key := range kubeletSysctls {
		value, err := os.ReadFile(sysctlPath(key))
		if err != nil {
			return err
		}
		rec.Sysctls[key] = strings.TrimSpace(string(value))
	}
	interfaces, err := net.Interfaces()
	if err != nil {
		return err
	}
	for _, i := range interfaces {
		rec.Interfaces = append(rec.Interfaces, i.Name)
	}
	for _, path := range createdPaths {
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			rec.Absent = append(rec.Absent, path)
		}
	}
	// Recorded before anything is made, so a failure half-way is cleaned.
	if err := writeRecord(name, rec); err != nil {
		return err
	}
	steps := [][]string{
		{"netns", "add", name},
		{"-n", name, "link", "set", "lo", "up"},
		// Both ends stay inside: the kernel here has no dummy driver, and
		// a veth with no peer outside has nowhere to send.
		{"-n", name, "link", "add", nodeLink, "type", "veth", "peer", "name", nodeLink + "p"},
		{"-n", name, "addr", "add", NodeIP + nodePrefix, "dev", nodeLink},
		{"-n", name, "link", "set", nodeLink, "up"},
		{"-n", name, "link", "set", nodeLink + "p", "up"},
		// A Service's address is rewritten after routing: without a route
		// a connect() fails before kube-proxy's rules see it.
		{"-n", name, "route", "add", "default", "dev", nodeLink},
	}
	for _, args := range steps {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
	}
	var st syscall.Stat_t
	if err := syscall.Stat(netnsPath(name), &st); err != nil {
		return err
	}
	rec.NetnsInode = st.Ino
	if err := writeRecord(name, rec); err != nil {
		return err
	}
	if err := makeCgroupRoot(name); err != nil {
		return err
	}
	return nil
}

func netnsPath(name string) string { return "/run/netns/" + name }

// kubeletSysctls are machine-wide values kubelet sets when it starts.
var kubeletSysctls = []string{"kernel.panic", "kernel.panic_on_oops", "vm.overcommit_memory"}

func sysctlPath(key string) string {
	return "/proc/sys/" + strings.ReplaceAll(key, ".", "/")
}

func readRecord(name string) (*record, error) {
	data, err := os.ReadFile(recordPath(name))
	if err != nil {
		return nil, err
	}
	var rec record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", recordPath(name), err)
	}
	return &rec, nil
}

func writeRecord(name string, rec *record) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(recordPath(name), data, 0o644)
}

// pidsIn lists the processes whose network namespace is inode.
func pidsIn(inode uint64) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	want := "net:[" + strconv.FormatUint(inode, 10) + "]"
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if link, err := os.Readlink(filepath.Join("/proc", e.Name(), "ns", "net")); err == nil && link == want {
			pids = append(pids, pid)
		}
	}
	return pids
}
