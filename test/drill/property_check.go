package drill

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/quiet"
)

// objectState is what the fresh check compares: an object's
// resourceVersion (any write changes it) and its status, to say what
// changed.
type objectState struct {
	resourceVersion string
	status          string
}

// snapshot reads every ClusterClass and ExtensionConfig from the apiserver.
func (p *propertyWorld) snapshot(ctx context.Context) (map[string]objectState, error) {
	out := map[string]objectState{}
	classes := &clusterv1.ClusterClassList{}
	if err := p.h.client.List(ctx, classes); err != nil {
		return nil, err
	}
	for i := range classes.Items {
		cc := &classes.Items[i]
		status, err := json.Marshal(cc.Status)
		if err != nil {
			return nil, err
		}
		out["ClusterClass "+cc.Namespace+"/"+cc.Name] = objectState{cc.ResourceVersion, string(status)}
	}
	configs := &runtimev1.ExtensionConfigList{}
	if err := p.h.client.List(ctx, configs); err != nil {
		return nil, err
	}
	for i := range configs.Items {
		ext := &configs.Items[i]
		status, err := json.Marshal(ext.Status)
		if err != nil {
			return nil, err
		}
		out["ExtensionConfig "+ext.Name] = objectState{ext.ResourceVersion, string(status)}
	}
	return out, nil
}

// checkFresh starts a second controller against the same apiserver and
// extensions, waits until it has reconciled every object and is quiet,
// and returns every object that changed meanwhile: a settled controller's
// statuses equal what a fresh one computes, so there must be none.
func (p *propertyWorld) checkFresh(ctx context.Context, round int) ([]string, error) {
	before, err := p.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	classes, configs := 0, 0
	for key := range before {
		if key[0] == 'C' {
			classes++
		} else {
			configs++
		}
	}
	checker, err := StartController(ctx, p.controllerOptions(fmt.Sprintf("property-check-%d.log", round)))
	if err != nil {
		return nil, fmt.Errorf("start the fresh controller: %w", err)
	}
	defer checker.Stop()
	var s Sample
	if _, _, err := quiet.Wait(ctx, quiet.Options{Quiet: time.Second, Timeout: p.o.Timeout, Interval: 200 * time.Millisecond},
		quiet.Equal[int64], func() (int64, bool, error) {
			var err error
			s, err = checker.Sample(ctx)
			return s.Reconciles + s.ConfigReconciles, s.Reconciles >= int64(classes) && s.ConfigReconciles >= int64(configs), err
		}); err != nil {
		return nil, fmt.Errorf("fresh controller, with %d of %d ClusterClasses and %d of %d ExtensionConfigs reconciled: %w",
			s.Reconciles, classes, s.ConfigReconciles, configs, err)
	}
	checker.Stop()
	after, err := p.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	var writes []string
	for key, b := range before {
		a, ok := after[key]
		switch {
		case !ok:
			writes = append(writes, fmt.Sprintf("round %d: %s vanished during the fresh check", round, key))
		case a.resourceVersion != b.resourceVersion:
			writes = append(writes, fmt.Sprintf("round %d: a fresh controller rewrote %s:\n  settled: %s\n  fresh:   %s",
				round, key, clip(b.status), clip(a.status)))
		}
	}
	slices.Sort(writes)
	return writes, nil
}

// clip keeps a status readable in a report line.
func clip(s string) string {
	const limit = 1500
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "..."
}
