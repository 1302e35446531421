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

package capimanagement

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/quiet"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/incluster"
)

// Where the core manager's Lease lives, as Cluster API's Deployment runs
// it: its manager reads the namespace from the Pod's service account mount.
const (
	LeaseNamespace = "capi-system"
	LeaseName      = "controller-leader-election-capi"
)

// runAsInCluster makes every replica run with --leader-elect and its
// namespace mounted as a Pod's, and creates that namespace.
func (m *Management) runAsInCluster(ctx context.Context) error {
	launcher, err := incluster.Launcher(filepath.Join(m.dir, "logs"), LeaseNamespace)
	if err != nil {
		return err
	}
	m.coreStart.Launcher = launcher
	m.coreStart.Args = append(m.coreStart.Args, "--leader-elect=true")
	m.leaderElection = true
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: LeaseNamespace}}
	if err := m.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// cores are every replica of the core manager that runs.
func (m *Management) cores() []*capibaseline.Manager {
	var all []*capibaseline.Manager
	if m.core != nil {
		all = append(all, m.core)
	}
	return append(all, m.standbys...)
}

// StartCoreReplica starts one more replica of the core manager, which
// stands by, and waits until it is ready. Its webhook server listens on a
// port of its own that no webhook configuration names.
func (m *Management) StartCoreReplica(ctx context.Context) error {
	if !m.leaderElection {
		return errors.New("a second core manager needs LeaderElection")
	}
	opts := m.coreStart
	opts.WebhookPort, opts.WebhookCertDir, opts.Standby = 0, "", true
	opts.LogPath = m.LogPath(fmt.Sprintf("%s-%d", CoreManagerName, len(m.cores())+1))
	replica, err := capibaseline.Start(ctx, opts)
	if err != nil {
		return withLogTail(err, opts.LogPath)
	}
	m.standbys = append(m.standbys, replica)
	return nil
}

// KillCoreLeader kills the leading core manager with SIGKILL and returns
// when it did, once the process is gone. RestartKilledCore starts it
// again, as kubelet restarts a container.
func (m *Management) KillCoreLeader() (time.Time, error) {
	if !m.leaderElection || m.core == nil {
		return time.Time{}, errors.New("no leading core manager to kill")
	}
	killed := m.core
	if err := syscall.Kill(killed.PID(), syscall.SIGKILL); err != nil {
		return time.Time{}, err
	}
	at := time.Now()
	m.core = nil
	<-killed.Done()
	killed.Stop()
	return at, nil
}

// RestartKilledCore starts the killed replica again on its webhook port,
// the one the webhook configurations name, and waits until it is ready.
// It stands by until AwaitCoreLeader finds who leads.
func (m *Management) RestartKilledCore(ctx context.Context) error {
	opts := m.coreStart
	opts.Standby = true
	opts.LogPath = m.LogPath(fmt.Sprintf("%s-restarted-%d", CoreManagerName, len(m.standbys)))
	restarted, err := capibaseline.Start(ctx, opts)
	if err != nil {
		return withLogTail(err, opts.LogPath)
	}
	m.standbys = append(m.standbys, restarted)
	return nil
}

// CoreName names the leading core manager, or the only one, by its log
// (core-manager, core-manager-2, core-manager-restarted-1).
func (m *Management) CoreName() string {
	return replicaName(m.core)
}

// replicaName is a replica's log file name without its extension.
func replicaName(replica *capibaseline.Manager) string {
	return strings.TrimSuffix(filepath.Base(replica.LogPath()), ".log")
}

// AwaitCoreLeader waits, after KillCoreLeader, until a replica leads (its
// leader_election_master_status is 1) and makes it the one CorePID,
// MetricsURL and Scrape read. It returns when that was first seen.
func (m *Management) AwaitCoreLeader(ctx context.Context, timeout time.Duration) (time.Time, error) {
	// Polled every 200 ms: the time to a new leader is measured in tenths.
	leader, _, err := quiet.Wait(ctx, quiet.Options{Timeout: timeout, Interval: 200 * time.Millisecond}, quiet.Equal[int],
		func() (int, bool, error) {
			if i := m.leadingStandby(ctx); i >= 0 {
				return i, true, nil
			}
			return -1, false, m.Exited()
		})
	if errors.Is(err, quiet.ErrTimeout) {
		return time.Time{}, fmt.Errorf("no core manager took the lead within %s", timeout)
	}
	if err != nil {
		return time.Time{}, err
	}
	at, replica := time.Now(), m.standbys[leader]
	m.standbys = append(m.standbys[:leader:leader], m.standbys[leader+1:]...)
	if m.core != nil {
		m.standbys = append(m.standbys, m.core)
	}
	m.core = replica
	return at, nil
}

// leadingStandby is the index of the standby whose metrics say it leads,
// or -1; a standby whose metrics cannot be read does not lead yet.
func (m *Management) leadingStandby(ctx context.Context) int {
	for i, replica := range m.standbys {
		metrics, err := replica.Scrape(ctx)
		if err != nil {
			continue
		}
		for _, series := range metrics["leader_election_master_status"].GetMetric() {
			if series.GetGauge().GetValue() == 1 {
				return i
			}
		}
	}
	return -1
}
