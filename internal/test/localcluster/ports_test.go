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

package localcluster

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A port from the kernel's ephemeral range can be taken by an outgoing
// connection before the process it was picked for binds it; FreePort's never
// can, and it never hands out one port twice.
func TestFreePort_BelowTheEphemeralRangeFreeAndNeverTwice(t *testing.T) {
	limit := ephemeralPortsStart()
	seen := map[int]bool{}
	for range 100 {
		port, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if port < firstFreePort || port >= limit {
			t.Fatalf("FreePort() = %d, want a port in [%d, %d), below the ephemeral range", port, firstFreePort, limit)
		}
		if seen[port] {
			t.Fatalf("FreePort() returned %d twice", port)
		}
		seen[port] = true
		l, err := net.Listen("tcp", ":"+strconv.Itoa(port))
		if err != nil {
			t.Fatalf("port %d from FreePort cannot be bound on every address: %v", port, err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// reserverLowEnv, when set, makes this test binary reserve every port of
// [low, low+reservedSpan) it can, print them, and wait to be killed.
const reserverLowEnv = "LOCALCLUSTER_TEST_RESERVE_FROM"

const reservedSpan = 10

func runReserver(lowText string) int {
	low, err := strconv.Atoi(lowText)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var ports []string
	for {
		port, err := freePortIn(low, low+reservedSpan)
		if err != nil {
			break
		}
		ports = append(ports, strconv.Itoa(port))
	}
	fmt.Println(strings.Join(ports, " "))
	time.Sleep(parentLife)
	return 1
}

// A test picks ports for a tool it starts, which picks ports of its own
// (rsc-dev for its control plane): a port one process picked and has not
// bound yet must not be handed to the other, whose bind would then fail.
func TestFreePort_NeverHandsOutAPortAnotherProcessPicked(t *testing.T) {
	low := firstFreePort + 4000 + os.Getpid()%400*reservedSpan
	reserver := exec.Command(os.Args[0], "-test.run=^$")
	reserver.Env = append(os.Environ(), reserverLowEnv+"="+strconv.Itoa(low))
	reserver.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := reserver.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := reserver.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reserver.Process.Kill(); _ = reserver.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the reserving process printed no ports: %v", err)
	}
	reserved := strings.Fields(line)
	if len(reserved) == 0 {
		t.Fatalf("the reserving process found no free port in [%d, %d)", low, low+reservedSpan)
	}
	port, err := freePortIn(low, low+reservedSpan)
	if err == nil {
		t.Fatalf("freePortIn(%d, %d) = %d, which the other process holds (%s)", low, low+reservedSpan, port, strings.Join(reserved, " "))
	}
}
