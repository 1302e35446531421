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

package procstat

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// clockTicks is the kernel's USER_HZ, which /proc/<pid>/stat counts in; it
// is 100 on every Linux architecture Go supports.
const clockTicks = 100

// CPUSeconds reads a process's user and system time from /proc/<pid>/stat.
func CPUSeconds(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return ParseStatCPUSeconds(string(data))
}

// ParseStatCPUSeconds reads utime and stime (fields 14 and 15) of a
// /proc/<pid>/stat line. The command name, field 2, may hold spaces and
// parentheses, so fields are counted from its last ')'.
func ParseStatCPUSeconds(stat string) (float64, error) {
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, fmt.Errorf("/proc stat %q: no command name", stat)
	}
	// After ") " come field 3 (state) onwards.
	fields := strings.Fields(stat[end+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc stat: %d fields after the command name, want at least 13", len(fields))
	}
	var ticks float64
	for _, f := range fields[11:13] {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc stat: cpu time %q: %w", f, err)
		}
		ticks += float64(v)
	}
	return ticks / clockTicks, nil
}

// Memory fields of /proc/<pid>/status that StatusBytes reads.
const (
	// ResidentNow is the resident set size now.
	ResidentNow = "VmRSS"
	// ResidentPeak is the resident set's high-water mark.
	ResidentPeak = "VmHWM"
)

// StatusBytes reads one memory field of /proc/<pid>/status, such as
// ResidentNow or ResidentPeak, in bytes.
func StatusBytes(pid int, field string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	v, err := ParseStatusBytes(string(data), field)
	if err != nil {
		return 0, fmt.Errorf("pid %d: %w", pid, err)
	}
	return v, nil
}

// ParseStatusBytes reads field ("VmHWM:   123456 kB") of a
// /proc/<pid>/status text, in bytes.
func ParseStatusBytes(status, field string) (int64, error) {
	for _, line := range strings.Split(status, "\n") {
		rest, ok := strings.CutPrefix(line, field+":")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("/proc status: %s %q", field, strings.TrimSpace(rest))
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc status: %s %q: %w", field, fields[0], err)
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("/proc status: no %s", field)
}
