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

package capinode

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// Restart is a container of a component that kubelet restarted.
type Restart struct {
	Component      Component
	Pod, Container string
	// Count is kubelet's restartCount.
	Count int32
	// Running says the container runs again, since StartedAt.
	Running   bool
	StartedAt time.Time
	// FinishedAt, ExitCode and Reason are of its last termination.
	FinishedAt time.Time
	ExitCode   int32
	Reason     string
}

// key names the container across samples.
func (r Restart) key() string { return r.Pod + "/" + r.Container }

func (r Restart) String() string {
	return fmt.Sprintf("%s Pod %s container %s restarted %d times, last ended %s (%s, exit %d), running again: %v",
		r.Component.Name, r.Pod, r.Container, r.Count, r.FinishedAt.Format(time.TimeOnly), r.Reason, r.ExitCode, r.Running)
}

// Restarts lists every container of every component that kubelet
// restarted, expected or not, sorted by Pod.
func (m *Management) Restarts(ctx context.Context) ([]Restart, error) {
	var found []Restart
	for _, comp := range Components {
		pods, err := m.pods(ctx, comp)
		if err != nil {
			return nil, err
		}
		for _, p := range pods {
			for _, cs := range p.Status.ContainerStatuses {
				if cs.RestartCount == 0 {
					continue
				}
				r := Restart{Component: comp, Pod: p.Name, Container: cs.Name, Count: cs.RestartCount}
				if run := cs.State.Running; run != nil {
					r.Running, r.StartedAt = true, run.StartedAt.Time
				}
				if last := cs.LastTerminationState.Terminated; last != nil {
					r.FinishedAt, r.ExitCode, r.Reason = last.FinishedAt.Time, last.ExitCode, last.Reason
				}
				found = append(found, r)
			}
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].key() < found[j].key() })
	return found, nil
}

// ExpectRestarts tells Exited that these restarts are a fault's doing:
// each container may have restarted as often as its Count says, and any
// further restart, or one of another container, is still reported.
func (m *Management) ExpectRestarts(restarts ...Restart) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.expected == nil {
		m.expected = map[string]int32{}
	}
	for _, r := range restarts {
		m.expected[r.key()] = max(m.expected[r.key()], r.Count)
	}
}

// expectedRestarts is how often a container may have restarted.
func (m *Management) expectedRestarts(pod, container string) int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.expected[Restart{Pod: pod, Container: container}.key()]
}

// ContainerIDs returns, for each of the component's Pods whose manager
// container runs, its container ID as kubelet reports it
// (containerd://ID).
func (m *Management) ContainerIDs(ctx context.Context, comp Component) (map[string]string, error) {
	pods, err := m.pods(ctx, comp)
	if err != nil {
		return nil, err
	}
	ids := map[string]string{}
	for _, p := range pods {
		for _, cs := range p.Status.ContainerStatuses {
			if cs.Name == "manager" && cs.State.Running != nil {
				ids[p.Name] = cs.ContainerID
			}
		}
	}
	return ids, nil
}
