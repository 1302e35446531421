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

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/proctest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextensiontest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/variablestest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/procstat"
)

const (
	// answers and answerBytes are the figures: 40 distinct
	// answers of about 25 MiB of JSON each.
	answers     = 40
	answerBytes = 25 << 20

	// baseline is what the process holds besides the answers: the Go
	// runtime, the binary's code, the runtime client's hook catalog and
	// TLS transport. The program reports it before its first call
	// (BaselineResident), about 24 MiB.
	baseline = 32 << 20
)

// restOverhead is what the process may hold beyond the bound at rest, its
// garbage collected and returned to the system: the baseline, and the
// free slots among the answers it keeps. Go's allocator never moves an
// object, and an answer decoded while earlier ones are being freed fills
// their slots, so the answers kept sit in spans the evicted ones left
// partly empty: measured here at 0.7 to 0.9 times the bytes cached
// (HeapInUse less LiveHeap), allowed once the bound.
func restOverhead(bound int64) int64 {
	return bound + baseline
}

// peakOverhead is what the process may hold beyond the bound at its peak,
// asking one answer at a time, each inFlight bytes while it is read and
// decoded (its body, read whole, and its decoded value). Live at worst
// are a full cache and the answer in flight; the garbage collector lets
// the heap grow to twice what was live at its last collection (GOGC=100)
// before it collects again; the free slots among what is kept take up to
// the bound again, as at rest; and the baseline. So the peak is at most
// 2 × (bound + inFlight) + bound + baseline.
func peakOverhead(bound, inFlight int64) int64 {
	return 2*bound + 2*inFlight + baseline
}

// measured is one run of the program: what it reported, and its resident
// memory read from /proc, at rest with the cache full and at its peak.
type measured struct {
	Report
	resident, peak int64
}

// The test (33, item 4): 40 distinct DiscoverVariables answers of
// about 25 MiB each, from a real HTTPS extension through the real runtime
// client into the real cache, keep the process's memory under the byte
// bound and a stated overhead; without the bound it holds every answer.
// The process is built without the race detector, which distorts memory
// and speed, and measured from outside, in /proc.
func TestMemory_FortyAnswersOf25MiBStayWithinTheByteBound(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program and moves 2 GiB of answers")
	}
	started := time.Now()
	binary := proctest.Build(t, ".", t.TempDir())
	body := answerBody(t, answerBytes)
	if len(body) > userfacing.DefaultMaxResponseBytes {
		t.Fatalf("answer of %d bytes, over the runtime client's bound", len(body))
	}
	// The extension answers with the encoded answer as it is (RawBody):
	// encoding 25 MiB for every call would triple the run's time, and the
	// controller's side reads and decodes the same bytes either way.
	ext := sampleextensiontest.Start(t, sampleextension.Options{})
	route := "DiscoverVariables/" + sampleextension.DiscoverVariablesHandler
	ext.Server.SetFaults(route, sampleextension.Faults{RawBody: body})
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, ext.CA, 0o600); err != nil {
		t.Fatal(err)
	}

	// Side by side, each a process of its own: memory is each one's.
	bound := int64(userfacing.DefaultVariablesCacheMaxBytes)
	var with, without measured
	t.Run("runs", func(t *testing.T) {
		t.Run("with the bound", func(t *testing.T) {
			t.Parallel()
			with = runProgram(t, binary, ext.URL, caFile, 0)
		})
		t.Run("without a byte bound", func(t *testing.T) {
			t.Parallel()
			without = runProgram(t, binary, ext.URL, caFile, -1)
		})
	})
	if t.Failed() {
		return
	}

	const MiB = 1 << 20
	inFlight := int64(len(body)) + with.AnswerWeight
	t.Logf("%d answers of %.1f MiB of JSON, %d variables each, weighing %.1f MiB each decoded (%.2f times the JSON)",
		answers, float64(len(body))/MiB, with.Variables, float64(with.AnswerWeight)/MiB, float64(with.AnswerWeight)/float64(len(body)))
	t.Logf("bound %d MiB (userfacing.DefaultVariablesCacheMaxBytes); overhead at rest %d MiB, at peak %d MiB (baseline %d MiB, measured %.1f MiB before the first call)",
		bound/MiB, restOverhead(bound)/MiB, peakOverhead(bound, inFlight)/MiB, baseline/MiB, float64(with.BaselineResident)/MiB)
	for _, r := range []struct {
		name string
		m    measured
	}{{"with the bound", with}, {"without a byte bound", without}} {
		t.Logf("%s: %d entries, %.1f MiB cached (at most %.1f); resident at rest %.1f MiB, at peak %.1f MiB; heap live %.1f MiB in %.1f MiB of spans; requests took %.1f s",
			r.name, r.m.Entries, float64(r.m.CacheBytes)/MiB, float64(r.m.MostCacheBytes)/MiB,
			float64(r.m.resident)/MiB, float64(r.m.peak)/MiB, float64(r.m.LiveHeap)/MiB, float64(r.m.HeapInUse)/MiB, r.m.Seconds)
	}

	if seen := ext.Server.SettingsSeen(route); len(seen) != answers {
		t.Errorf("the extension saw %d distinct settings, want %d distinct requests", len(seen), answers)
	}
	if with.MostCacheBytes > bound || with.Entries == 0 || with.Oversize != 0 {
		t.Errorf("with the bound: at most %d bytes cached, %d entries, %d oversize; want at most %d, some, none", with.MostCacheBytes, with.Entries, with.Oversize, bound)
	}
	if limit := bound + restOverhead(bound); with.resident > limit {
		t.Errorf("with the bound: resident at rest %d bytes, over the bound and restOverhead, %d", with.resident, limit)
	}
	if limit := bound + peakOverhead(bound, inFlight); with.peak > limit {
		t.Errorf("with the bound: resident at peak %d bytes, over the bound and peakOverhead, %d", with.peak, limit)
	}
	// The same run without the bound keeps every answer, and its memory
	// shows it: what the checks above catch if the bound does not hold.
	if without.Entries != answers || without.CacheBytes != answers*without.AnswerWeight {
		t.Errorf("without a byte bound: %d entries of %d bytes, want all %d", without.Entries, without.CacheBytes, answers)
	}
	if limit := bound + restOverhead(bound); without.resident <= limit {
		t.Errorf("without a byte bound: resident at rest %d bytes, within the bound and restOverhead, %d: the test shows nothing", without.resident, limit)
	}
	if limit := bound + peakOverhead(bound, inFlight); without.peak <= limit {
		t.Errorf("without a byte bound: resident at peak %d bytes, within the bound and peakOverhead, %d: the test shows nothing", without.peak, limit)
	}
	t.Logf("took %s", time.Since(started).Round(time.Second))
}

// runProgram runs the program against the extension at url with byte bound
// maxBytes, and reads its memory from /proc once it reports, while it holds
// its cache.
func runProgram(t *testing.T, binary, url, caFile string, maxBytes int64) measured {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "-url", url, "-ca", caFile,
		"-handler", sampleextension.DiscoverVariablesHandler, "-answers", strconv.Itoa(answers), "-max-bytes", strconv.FormatInt(maxBytes, 10))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	}()
	// The line comes once the run is done, or never if it fails or the
	// deadline kills it: either way the read ends.
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err != nil {
		// Its error output is complete, and ours to read, once it is waited for.
		waitErr := cmd.Wait()
		t.Fatalf("the program reported nothing (%v, %v): %s", err, waitErr, proctest.Tail(stderr.String(), 20))
	}
	var m measured
	if err := json.Unmarshal(line, &m.Report); err != nil {
		t.Fatalf("report %q: %v", strings.TrimSpace(string(line)), err)
	}
	pid := cmd.Process.Pid
	if m.resident, err = procstat.StatusBytes(pid, procstat.ResidentNow); err != nil {
		t.Fatal(err)
	}
	if m.peak, err = procstat.StatusBytes(pid, procstat.ResidentPeak); err != nil {
		t.Fatal(err)
	}
	return m
}

// answerBody is a successful DiscoverVariablesResponse of at least size
// bytes of JSON: variables of twenty typed, described properties, each with
// an enum, a default and a bound, as extensions write them (decoded, about
// 3.2 times their JSON; see variablescache.Retained).
func answerBody(t *testing.T, size int) []byte {
	t.Helper()
	variable, err := json.Marshal(variablestest.Described("variable00000"))
	if err != nil {
		t.Fatal(err)
	}
	// Encoded once and renamed: encoding 25 MiB under the race detector
	// takes seconds.
	name := []byte(`"name":"variable00000"`)
	out := fmt.Appendf(nil, `{"apiVersion":%q,"kind":"DiscoverVariablesResponse","status":%q,"variables":[`,
		runtimehooksv1.GroupVersion.String(), runtimehooksv1.ResponseStatusSuccess)
	for i := 0; len(out) < size; i++ {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, bytes.Replace(variable, name, fmt.Appendf(nil, `"name":"variable%05d"`, i), 1)...)
	}
	return append(out, "]}"...)
}
