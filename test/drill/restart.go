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

package drill

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/localclustertest"
)

// RestartOptions shape the kube-apiserver restart drill.
type RestartOptions struct {
	ClusterClasses   int `json:"clusterClasses"`
	ExtensionConfigs int `json:"extensionConfigs"`
	// StopAt is the share of ClusterClasses that have converged when
	// kube-apiserver is stopped: the rest are mid-reconcile.
	StopAt float64 `json:"stopAt"`
	// Outage is how long kube-apiserver stays down.
	Outage time.Duration `json:"outage"`
	// Timeout bounds set-up and recovery.
	Timeout time.Duration `json:"timeout"`
}

// DefaultRestartOptions: 500 ClusterClasses, kube-apiserver down for 30 s
// when a fifth of them have converged.
func DefaultRestartOptions() RestartOptions {
	return RestartOptions{ClusterClasses: 500, ExtensionConfigs: 10, StopAt: 0.2, Outage: 30 * time.Second, Timeout: 5 * time.Minute}
}

// RestartReport is what the restart drill measured.
type RestartReport struct {
	Options RestartOptions `json:"options"`
	// ConvergedAtStop is how many ClusterClasses had converged when
	// kube-apiserver stopped.
	ConvergedAtStop int `json:"convergedAtStop"`
	// ReconcilesDuringOutage and ReconcileErrorsDuringOutage are what the
	// controller attempted while kube-apiserver was down.
	ReconcilesDuringOutage      int64 `json:"reconcilesDuringOutage"`
	ReconcileErrorsDuringOutage int64 `json:"reconcileErrorsDuringOutage"`
	// Recovered is how long after kube-apiserver was ready again every
	// ClusterClass had converged.
	Recovered time.Duration `json:"recovered"`
	// ControllerPID is the one process that ran throughout; AliveChecks is
	// how often the drill checked it was running during the outage.
	ControllerPID int    `json:"controllerPID"`
	AliveChecks   int    `json:"aliveChecks"`
	Observed      int64  `json:"observed"`
	Losses        []Loss `json:"losses"`
}

// Restart runs the apiserver restart drill: the controller reconciles
// ClusterClasses, kube-apiserver stops mid-way and comes back, and every
// ClusterClass must converge without the controller restarting and without
// any status lost.
func Restart(ctx context.Context, env Env, cluster *localcluster.Cluster, o RestartOptions) (*RestartReport, error) {
	h, err := setUp(ctx, env, "restart", fixtureOptions{
		clusterClasses: o.ClusterClasses, extensionConfigs: o.ExtensionConfigs, namespaces: 10, handlerTimeout: 10,
		distinctSettings: true,
	}, nil, variablesV1)
	if err != nil {
		return nil, err
	}
	defer h.tearDown(context.WithoutCancel(ctx))
	// Every ClusterClass makes its own call, and slow answers stretch
	// those calls, so the outage lands among reconciles in flight.
	h.fixture.setFaults(sampleextension.Faults{Delay: 50 * time.Millisecond})
	report := &RestartReport{Options: o, ControllerPID: h.controller.PID()}
	if err := h.fixture.createClasses(ctx, h.client); err != nil {
		return nil, err
	}
	want := h.expectEverywhere(variablesV1)
	if report.ConvergedAtStop, err = waitPartlyConverged(ctx, h, want, int(float64(o.ClusterClasses)*o.StopAt), o.Timeout); err != nil {
		return nil, err
	}
	before, err := h.sample(ctx)
	if err != nil {
		return nil, err
	}
	// Killed, not stopped gracefully: a crash is the harder case (no
	// request is finished for the controller), and a graceful stop waits
	// up to a minute for open watches, which would blur the outage.
	if err := localclustertest.KillAPIServer(cluster); err != nil {
		return nil, fmt.Errorf("kill kube-apiserver: %w", err)
	}
	env.progress("restart: kube-apiserver killed with %d of %d ClusterClasses converged", report.ConvergedAtStop, o.ClusterClasses)
	if report.AliveChecks, err = checkAliveFor(ctx, h, o.Outage); err != nil {
		return report, err
	}
	during, err := h.sample(ctx)
	if err != nil {
		return report, fmt.Errorf("end of the outage: %w", err)
	}
	report.ReconcilesDuringOutage = during.Reconciles - before.Reconciles
	report.ReconcileErrorsDuringOutage = during.ReconcileErrors - before.ReconcileErrors
	if err := cluster.StartAPIServer(ctx); err != nil {
		return report, fmt.Errorf("start kube-apiserver again: %w", err)
	}
	env.progress("restart: kube-apiserver back after %s", o.Outage)
	if report.Recovered, err = h.guard.waitConverged(ctx, o.Timeout, want); err != nil {
		return report, fmt.Errorf("after the restart: %w", err)
	}
	if err := h.exitError(); err != nil {
		return report, err
	}
	report.Observed, report.Losses = h.guard.Observed(), h.guard.Losses()
	env.progress("restart: all converged %s after kube-apiserver was back", report.Recovered.Round(time.Millisecond))
	return report, nil
}

// waitPartlyConverged waits until at least stopAt ClusterClasses have
// converged, and returns how many had.
func waitPartlyConverged(ctx context.Context, h *harness, want func(types.NamespacedName) ([]string, bool), stopAt int, timeout time.Duration) (int, error) {
	deadline := time.Now().Add(timeout)
	for {
		converged, total, err := h.guard.convergence(ctx, want)
		if err != nil {
			return 0, err
		}
		if converged >= stopAt {
			return converged, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("only %d of %d ClusterClasses converged before the outage", converged, total)
		}
		if err := pause(ctx, 20*time.Millisecond); err != nil {
			return 0, err
		}
	}
}

// checkAliveFor checks every half second, for the outage, that the
// controller process has not exited, and returns how many checks passed.
func checkAliveFor(ctx context.Context, h *harness, outage time.Duration) (int, error) {
	checks := 0
	for end := time.Now().Add(outage); time.Now().Before(end); {
		if err := h.exitError(); err != nil {
			return checks, fmt.Errorf("during the outage: %w", err)
		}
		checks++
		if err := pause(ctx, 500*time.Millisecond); err != nil {
			return checks, err
		}
	}
	return checks, nil
}
