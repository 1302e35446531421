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

package dropin

import (
	"context"
	"fmt"

	"sigs.k8s.io/cluster-api/core/reconcilers/cluster"
	"sigs.k8s.io/cluster-api/core/reconcilers/clusterresourceset"
	"sigs.k8s.io/cluster-api/core/reconcilers/clusterresourcesetbinding"
	"sigs.k8s.io/cluster-api/core/reconcilers/machine"
	"sigs.k8s.io/cluster-api/core/reconcilers/machinedeployment"
	"sigs.k8s.io/cluster-api/core/reconcilers/machinehealthcheck"
	"sigs.k8s.io/cluster-api/core/reconcilers/machinepool"
	"sigs.k8s.io/cluster-api/core/reconcilers/machineset"
	topologycluster "sigs.k8s.io/cluster-api/core/reconcilers/topology/cluster"
	topologymachinedeployment "sigs.k8s.io/cluster-api/core/reconcilers/topology/machinedeployment"
	topologymachineset "sigs.k8s.io/cluster-api/core/reconcilers/topology/machineset"
	"sigs.k8s.io/cluster-api/feature"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"
)

// reconciler is a Cluster API reconciler's SetupWithManager.
type reconciler interface {
	SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error
}

// setUp adds one of Cluster API's reconcilers.
func (a *assembly) setUp(ctx context.Context, name string, r reconciler, options controller.Options) error {
	if err := r.SetupWithManager(ctx, a.mgr, options); err != nil {
		return fmt.Errorf("create controller %s: %w", name, err)
	}
	a.add("reconciler", name, ClusterAPI)
	return nil
}

// topologyWorkers is what Cluster API gives the MachineDeployment and
// MachineSet topology reconcilers, which have no flag.
const topologyWorkers = 25

// topology adds Cluster API's managed topology reconcilers, which call
// Runtime Extensions through our runtime client.
func (a *assembly) topology(ctx context.Context) error {
	if !feature.Gates.Enabled(feature.ClusterTopology) {
		return nil
	}
	c, o := a.mgr.GetClient(), a.o
	if err := a.setUp(ctx, "ClusterTopology", &topologycluster.Reconciler{
		Client: c, APIReader: a.mgr.GetAPIReader(), RuntimeClient: a.runtimeClient,
		ClusterCache: a.clusterCache, WatchFilterValue: o.WatchFilter,
	}, a.concurrency("clustertopology")); err != nil {
		return err
	}
	if err := a.setUp(ctx, "MachineDeploymentTopology", &topologymachinedeployment.Reconciler{
		Client: c, APIReader: a.mgr.GetAPIReader(), WatchFilterValue: o.WatchFilter,
	}, controller.Options{MaxConcurrentReconciles: topologyWorkers}); err != nil {
		return err
	}
	return a.setUp(ctx, "MachineSetTopology", &topologymachineset.Reconciler{
		Client: c, APIReader: a.mgr.GetAPIReader(), WatchFilterValue: o.WatchFilter,
	}, controller.Options{MaxConcurrentReconciles: topologyWorkers})
}

// machines adds the Cluster, Machine, MachineSet, MachineDeployment and
// MachinePool reconcilers.
func (a *assembly) machines(ctx context.Context) error {
	c, reader, o := a.mgr.GetClient(), a.mgr.GetAPIReader(), a.o
	steps := []struct {
		name    string
		r       reconciler
		workers string
	}{
		{"Cluster", &cluster.Reconciler{
			Client: c, APIReader: reader, ClusterCache: a.clusterCache, WatchFilterValue: o.WatchFilter,
			RemoteConnectionGracePeriod: o.RemoteConnectionGracePeriod,
		}, "cluster"},
		{"Machine", &machine.Reconciler{
			Client: c, APIReader: reader, ClusterCache: a.clusterCache, RuntimeClient: a.runtimeClient,
			WatchFilterValue: o.WatchFilter, RemoteConditionsGracePeriod: o.RemoteConditionsGracePeriod,
			AdditionalSyncMachineLabels: a.machine.syncLabels, AdditionalSyncMachineAnnotations: a.machine.syncAnnotations,
		}, "machine"},
		{"MachineSet", &machineset.Reconciler{
			Client: c, APIReader: reader, ClusterCache: a.clusterCache,
			PreflightChecks: a.machine.preflightChecks, WatchFilterValue: o.WatchFilter,
		}, "machineset"},
		{"MachineDeployment", &machinedeployment.Reconciler{
			Client: c, APIReader: reader, RuntimeClient: a.runtimeClient, WatchFilterValue: o.WatchFilter,
		}, "machinedeployment"},
	}
	for _, s := range steps {
		if err := a.setUp(ctx, s.name, s.r, a.concurrency(s.workers)); err != nil {
			return err
		}
	}
	if !feature.Gates.Enabled(feature.MachinePool) {
		return nil
	}
	return a.setUp(ctx, "MachinePool", &machinepool.Reconciler{
		Client: c, APIReader: reader, ClusterCache: a.clusterCache, WatchFilterValue: o.WatchFilter,
	}, a.concurrency("machinepool"))
}

// addons adds the ClusterResourceSet, ClusterResourceSetBinding and
// MachineHealthCheck reconcilers.
func (a *assembly) addons(ctx context.Context) error {
	c, o := a.mgr.GetClient(), a.o
	if err := (&clusterresourceset.Reconciler{
		Client: c, ClusterCache: a.clusterCache, WatchFilterValue: o.WatchFilter,
	}).SetupWithManager(ctx, a.mgr, a.concurrency("clusterresourceset"), a.secretMetadata); err != nil {
		return fmt.Errorf("create controller ClusterResourceSet: %w", err)
	}
	a.add("reconciler", "ClusterResourceSet", ClusterAPI)
	if err := a.setUp(ctx, "ClusterResourceSetBinding", &clusterresourcesetbinding.Reconciler{
		Client: c, WatchFilterValue: o.WatchFilter,
	}, a.concurrency("clusterresourceset")); err != nil {
		return err
	}
	return a.setUp(ctx, "MachineHealthCheck", &machinehealthcheck.Reconciler{
		Client: c, ClusterCache: a.clusterCache, WatchFilterValue: o.WatchFilter,
	}, a.concurrency("machinehealthcheck"))
}
