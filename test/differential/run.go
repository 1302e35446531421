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

package differential

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/quiet"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/drill"
)

// Cluster is a fresh local control plane serving Cluster API's core CRDs
// and the fixture's template CRDs.
type Cluster struct {
	*localcluster.Cluster
	Client client.Client
	dir    string
}

// StartCluster starts a control plane in dir/cluster with the binaries and
// Cluster API CRDs in binDir.
func StartCluster(ctx context.Context, dir, binDir string, f *Fixture) (*Cluster, error) {
	crds, err := capibaseline.CRDs(binDir)
	if err != nil {
		return nil, err
	}
	crds = append(append([]*apiextensionsv1.CustomResourceDefinition{}, crds...), f.CRDs...)
	lc, err := localcluster.Start(ctx, localcluster.Options{Dir: filepath.Join(dir, "cluster"), BinDir: binDir, CRDs: crds})
	if err != nil {
		return nil, err
	}
	config := lc.Config()
	config.QPS, config.Burst = 500, 1000
	c, err := client.New(config, client.Options{Scheme: scheme.New()})
	if err != nil {
		lc.Stop()
		return nil, err
	}
	return &Cluster{Cluster: lc, Client: c, dir: dir}, nil
}

// Manager is a manager under test (Cluster API's, the drop-in, or the
// observer), as a process of its own.
type Manager interface {
	Stop()
	Exited() (bool, error)
	Scrape(ctx context.Context) (managerprocess.Metrics, error)
	LogPath() string
}

// StartBaseline runs Cluster API's core manager on the cluster.
func (c *Cluster) StartBaseline(ctx context.Context, binDir, name string, args ...string) (*capibaseline.Manager, error) {
	return capibaseline.Start(ctx, capibaseline.Options{
		BinDir: binDir, Kubeconfig: c.KubeconfigPath(), LogPath: filepath.Join(c.dir, name+".log"), Args: args,
	})
}

// StartDropIn runs the drop-in core manager (cmd/core-manager, built into
// binary) on the cluster, with the flags Cluster API's manager gets.
func (c *Cluster) StartDropIn(ctx context.Context, binDir, binary, name string) (*capibaseline.Manager, error) {
	return capibaseline.Start(ctx, capibaseline.Options{
		BinDir: binDir, Binary: binary, Kubeconfig: c.KubeconfigPath(), LogPath: filepath.Join(c.dir, name+".log"),
	})
}

// StartObserver runs the read-only tools' binary (cmd/runtime-sdk-controller)
// in observe mode on the cluster: it writes nothing and counts what Cluster
// API's mapping and the index would reconcile.
func (c *Cluster) StartObserver(ctx context.Context, binary, name string) (*drill.Controller, error) {
	return drill.StartObserver(ctx, drill.ControllerOptions{
		Binary: binary, Kubeconfig: c.KubeconfigPath(), LogPath: filepath.Join(c.dir, name+".log"),
	})
}

// quietFor is how long a snapshot must stay the same to count as settled.
const quietFor = 3 * time.Second

// Settle polls until every ExtensionConfig has a Discovered condition and
// every ClusterClass a VariablesReady one (or Paused, when paused), and
// then until the snapshot stays the same for quietFor, and returns it. A
// manager that exits fails it at once.
func (c *Cluster) Settle(ctx context.Context, f *Fixture, m Manager, timeout time.Duration) (Snapshot, error) {
	// last is nil until every condition is written, so the first snapshot
	// after that starts the quiet period afresh.
	var last Snapshot
	why := "not read yet"
	s, _, err := quiet.Wait(ctx, quiet.Options{Quiet: quietFor, Timeout: timeout, Interval: 250 * time.Millisecond}, sameSnapshot,
		func() (Snapshot, bool, error) {
			if exited, err := m.Exited(); exited {
				return nil, false, fmt.Errorf("manager exited (%v); see %s", err, m.LogPath())
			}
			if done, reason := c.conditionsWritten(ctx, f); !done {
				why, last = reason, nil
				return nil, false, nil
			}
			s, err := Take(ctx, c.Client, f)
			if err != nil {
				// A failed read changes nothing; the next one may pass.
				why = err.Error()
				return last, false, nil
			}
			why, last = "snapshot still changing", s
			return s, true, nil
		})
	if errors.Is(err, quiet.ErrTimeout) {
		return nil, fmt.Errorf("not settled within %s: %s; see %s", timeout, why, m.LogPath())
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (c *Cluster) conditionsWritten(ctx context.Context, f *Fixture) (bool, string) {
	for _, want := range f.ExtensionConfigs {
		ext := &runtimev1.ExtensionConfig{}
		if err := c.Client.Get(ctx, client.ObjectKeyFromObject(want), ext); err != nil {
			return false, err.Error()
		}
		if ok, why := settledAt(ext.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition, f.Settled["/"+ext.Name], ext.Generation); !ok {
			return false, "ExtensionConfig " + ext.Name + ": " + why
		}
		// Cluster API writes Paused first, in a reconcile of its own.
		if meta.FindStatusCondition(ext.Status.Conditions, clusterv1.PausedCondition) == nil {
			return false, "ExtensionConfig " + ext.Name + " has no Paused condition"
		}
	}
	for _, want := range f.ClusterClasses {
		cc := &clusterv1.ClusterClass{}
		if err := c.Client.Get(ctx, client.ObjectKeyFromObject(want), cc); err != nil {
			return false, err.Error()
		}
		condition := clusterv1.ClusterClassVariablesReadyCondition
		if _, paused := cc.Annotations[clusterv1.PausedAnnotation]; paused {
			condition = clusterv1.PausedCondition
		}
		key := cc.Namespace + "/" + cc.Name
		if f.RefusedByBaseline[key] {
			continue
		}
		if ok, why := settledAt(cc.Status.Conditions, condition, f.Settled[key], cc.Generation); !ok {
			return false, "ClusterClass " + key + ": " + why
		}
	}
	return true, ""
}

// settledAt tells whether a condition has the status it ends at, for the
// object's current generation.
func settledAt(conditions []metav1.Condition, condType string, want metav1.ConditionStatus, generation int64) (bool, string) {
	c := meta.FindStatusCondition(conditions, condType)
	switch {
	case c == nil:
		return false, "no " + condType + " condition"
	case c.Status != want || c.ObservedGeneration != generation:
		return false, fmt.Sprintf("%s is %s at generation %d, settles at %s at %d (%s)", condType, c.Status, c.ObservedGeneration, want, generation, c.Message)
	}
	return true, ""
}

// sameSnapshot tells two snapshots apart, and an unwritten one (nil) from
// any written one.
func sameSnapshot(a, b Snapshot) bool {
	return (a == nil) == (b == nil) && maps.Equal(a, b)
}

// ReconcileCounts reads controller_runtime_reconcile_total and its errors
// for one controller of m.
func ReconcileCounts(ctx context.Context, m Manager, controller string) (total, errs int64, err error) {
	metrics, err := m.Scrape(ctx)
	if err != nil {
		return 0, 0, err
	}
	labels := map[string]string{"controller": controller}
	return int64(metrics.Sum("controller_runtime_reconcile_total", labels)),
		int64(metrics.Sum("controller_runtime_reconcile_errors_total", labels)), nil
}
