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

package controllers_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/storage/names"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/benchfixture"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextensiontest"
)

// What the controller keeps per ExtensionConfig, handler and variable must
// go with them: configs that come and go under new names, each bringing
// its own variable, leave the caches and /metrics as they found them.
func TestManager_ConfigsThatComeAndGoLeaveNothingBehind(t *testing.T) {
	const (
		cycles = 1000
		slots  = 10 // ClusterClasses cycling at once
		prefix = "cycle-"
	)
	ctx := context.Background()
	ns := env.Namespace(t, nil)
	ext := sampleextensiontest.StartWithVariables(t, benchfixture.StringVariable("region"))
	managertest.StartControllers(t, env.Config, managertest.Options{})

	createConfig := func(name string) error {
		config := &runtimev1.ExtensionConfig{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       runtimev1.ExtensionConfigSpec{ClientConfig: runtimev1.ClientConfig{URL: ext.URL, CABundle: ext.CA}, NamespaceSelector: &metav1.LabelSelector{}},
		}
		return env.Client.Create(ctx, config)
	}
	deleteConfig := func(name string) error {
		config := &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: name}}
		return client.IgnoreNotFound(env.Client.Delete(ctx, config))
	}
	base := names.SimpleNameGenerator.GenerateName("base-")
	if err := createConfig(base); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = deleteConfig(base) })

	// point makes slot's ClusterClass call config, with an inline variable
	// of its own, and waits until it published both.
	point := func(slot int, config, variable string) error {
		key := client.ObjectKey{Namespace: ns, Name: fmt.Sprintf("slot-%d", slot)}
		cc := &clusterv1.ClusterClass{}
		err := env.Client.Get(ctx, key, cc)
		switch {
		case apierrors.IsNotFound(err):
			cc = benchfixture.ClusterClass(ns, key.Name, nil, config)
			cc.Spec.Variables = []clusterv1.ClusterClassVariable{benchfixture.StringVariable(variable)}
			err = env.Client.Create(ctx, cc)
		case err == nil:
			patch := client.MergeFrom(cc.DeepCopy())
			cc.Spec.Patches = benchfixture.ClusterClass(ns, key.Name, nil, config).Spec.Patches
			cc.Spec.Variables = []clusterv1.ClusterClassVariable{benchfixture.StringVariable(variable)}
			err = env.Client.Patch(ctx, cc, patch)
		}
		if err != nil {
			return err
		}
		return waitPublished(ctx, key, cc.Generation, "patch-"+config, variable)
	}

	var wg sync.WaitGroup
	errs := make([]error, slots)
	for slot := range slots {
		wg.Go(func() { errs[slot] = point(slot, base, "base") })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	before := takeStock(t, prefix)

	for slot := range slots {
		wg.Go(func() {
			previous := ""
			for i := slot; i < cycles; i += slots {
				config := fmt.Sprintf("%s%04d", prefix, i)
				err := createConfig(config)
				if err == nil {
					err = point(slot, config, fmt.Sprintf("v%04d", i))
				}
				if err == nil && previous != "" {
					err = deleteConfig(previous)
				}
				if err != nil {
					errs[slot] = fmt.Errorf("cycle %d: %w", i, err)
					return
				}
				previous = config
			}
			if err := point(slot, base, "base"); err != nil {
				errs[slot] = fmt.Errorf("back to the base config: %w", err)
				return
			}
			errs[slot] = deleteConfig(previous)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}

	var after stock
	polltest.Eventually(t, time.Minute, "the caches and /metrics as before the cycles", func() (bool, string) {
		after = takeStock(t, prefix)
		return after.schemas == before.schemas && after.answers == before.answers && after.cycleSeries == 0,
			fmt.Sprintf("before %+v, after %+v", before, after)
	})
	t.Logf("%d cycles: before %+v, after %+v", cycles, before, after)
}

// waitPublished waits until the ClusterClass at key reconciled generation
// with VariablesReady True, publishing variable and the variables of patch.
// It returns an error rather than failing the test, for the goroutines
// that point slots at configs.
func waitPublished(ctx context.Context, key client.ObjectKey, generation int64, patch, variable string) error {
	return polltest.Within(time.Minute, key.String()+" published", func() (bool, string) {
		cc := &clusterv1.ClusterClass{}
		if err := env.Client.Get(ctx, key, cc); err != nil {
			return false, err.Error()
		}
		ready := meta.FindStatusCondition(cc.Status.Conditions, clusterv1.ClusterClassVariablesReadyCondition)
		froms := map[string]bool{}
		for _, v := range cc.Status.Variables {
			for _, d := range v.Definitions {
				froms[v.Name+"/"+d.From] = true
			}
		}
		return cc.Status.ObservedGeneration >= generation && ready != nil && ready.Status == metav1.ConditionTrue &&
				froms[variable+"/"+clusterv1.VariableDefinitionFromInline] && froms["region/"+patch],
			fmt.Sprintf("generation %d observed %d, VariablesReady %v, variables %v", generation, cc.Status.ObservedGeneration, ready, froms)
	})
}

// stock is what the controller holds that configs and variables that come
// and go could grow.
type stock struct {
	// schemas and answers are the variable schema results and
	// DiscoverVariables answers cached.
	schemas, answers int
	// series are all extension call series; cycleSeries those of the
	// cycled configs.
	series, cycleSeries int
	// heapBytes is the Go heap in use after a collection, the test's
	// own objects included.
	heapBytes uint64
}

func takeStock(t *testing.T, prefix string) stock {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var s stock
	for _, f := range families {
		switch f.GetName() {
		case "runtime_sdk_variable_schemas_cached":
			s.schemas = int(f.GetMetric()[0].GetGauge().GetValue())
		case "runtime_sdk_variables_cache_entries":
			s.answers = int(f.GetMetric()[0].GetGauge().GetValue())
		case "runtime_sdk_extension_calls_total":
			s.series = len(f.GetMetric())
			for _, m := range f.GetMetric() {
				if strings.Contains(label(m, "handler"), prefix) {
					s.cycleSeries++
				}
			}
		}
	}
	runtime.GC()
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	s.heapBytes = mem.HeapAlloc
	return s
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
