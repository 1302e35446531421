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

// HostCPUSeconds reads the machine's CPU time from /proc/stat, summed over
// its CPUs: busy is every state but idle and iowait, total every state.
// busy/total over an interval is how loaded the machine was.
func HostCPUSeconds() (busy, total float64, err error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	return ParseHostCPUSeconds(string(data))
}

// ParseHostCPUSeconds reads the "cpu" line of a /proc/stat text: user,
// nice, system, idle, iowait, irq, softirq and steal, in USER_HZ ticks
// (guest time is already inside user and nice).
func ParseHostCPUSeconds(stat string) (busy, total float64, err error) {
	ticks, err := hostCPUTicks(stat)
	if err != nil {
		return 0, 0, err
	}
	for i, v := range ticks {
		total += float64(v)
		// Fields 4 and 5 are idle and iowait.
		if i != 3 && i != 4 {
			busy += float64(v)
		}
	}
	return busy / clockTicks, total / clockTicks, nil
}

// HostStealSeconds returns the CPU time, summed over all cores, in which
// the hypervisor ran something else while this machine wanted to run,
// since boot.
func HostStealSeconds() (float64, error) {
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	return ParseHostStealSeconds(string(stat))
}

// ParseHostStealSeconds reads the steal field, the eighth, of /proc/stat's
// cpu line.
func ParseHostStealSeconds(stat string) (float64, error) {
	ticks, err := hostCPUTicks(stat)
	if err != nil {
		return 0, err
	}
	return float64(ticks[7]) / clockTicks, nil
}

// hostCPUTicks returns the first eight fields of /proc/stat's cpu line
// (user, nice, system, idle, iowait, irq, softirq, steal), in ticks.
func hostCPUTicks(stat string) ([]uint64, error) {
	for _, line := range strings.Split(stat, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] != "cpu" {
			continue
		}
		if len(fields) < 9 {
			return nil, fmt.Errorf("/proc/stat: cpu line %q has %d fields, want at least 9", line, len(fields))
		}
		ticks := make([]uint64, 8)
		for i, f := range fields[1:9] {
			v, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("/proc/stat: cpu field %d %q: %w", i+1, f, err)
			}
			ticks[i] = v
		}
		return ticks, nil
	}
	return nil, fmt.Errorf("/proc/stat: no cpu line")
}

// Machine describes this machine in one line: its CPUs, their model and
// its memory, from /proc/cpuinfo and /proc/meminfo.
func Machine() (string, error) {
	cpuinfo, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "", err
	}
	meminfo, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "", err
	}
	cpus, model := 0, "unknown model"
	for _, line := range strings.Split(string(cpuinfo), "\n") {
		key, value, ok := strings.Cut(line, ":")
		switch key = strings.TrimSpace(key); {
		case !ok:
		case key == "processor":
			cpus++
		case key == "model name":
			model = strings.TrimSpace(value)
		}
	}
	memory, err := ParseStatusBytes(string(meminfo), "MemTotal")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d CPUs (%s), %.0f GiB of memory", cpus, model, float64(memory)/(1<<30)), nil
}
