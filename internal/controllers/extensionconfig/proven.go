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

package extensionconfig

import (
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
)

// provenClientConfigs keeps, by config name, the last clientConfig (URL,
// service, CA) a Discovery succeeded with. Calls keep going there until a
// Discovery with a new one succeeds: make-before-break, as a Deployment
// keeps its old Pods until the new ones are ready, and as Cluster API keeps
// the last registration its Discovery made. A typo in a URL or a CA then
// shows as Discovered=False, and breaks no hook that was working.
//
// It learns from two places: this replica's own successful Discoveries, and
// every ExtensionConfig it reads (its informer on every replica, the lists
// of warm-up and of taking the lead), whose clientConfig is proven when
// Discovered is True at the object's current generation. So a standby that
// saw the last good clientConfig keeps it across a takeover. A replica
// that never saw it (a fresh start after the edit) knows only the spec,
// and registers under it. The zero value is empty and ready to use.
type provenClientConfigs struct {
	mu     sync.Mutex
	byName map[string]provenClientConfig
}

// provenClientConfig is a clientConfig a Discovery succeeded with, and the
// object and generation it was proven at: an older event must not undo a
// newer proof, and a config re-created under the same name starts afresh.
type provenClientConfig struct {
	uid          types.UID
	generation   int64
	clientConfig runtimev1.ClientConfig
}

// discovered records that a Discovery with ext's spec succeeded.
func (p *provenClientConfigs) discovered(ext *runtimev1.ExtensionConfig) {
	p.record(ext)
}

// observe records ext's clientConfig as proven when its status says a
// Discovery with the spec at its current generation succeeded.
func (p *provenClientConfigs) observe(ext *runtimev1.ExtensionConfig) {
	discovered := meta.FindStatusCondition(ext.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition)
	if discovered == nil || discovered.Status != metav1.ConditionTrue || discovered.ObservedGeneration != ext.Generation {
		return
	}
	p.record(ext)
}

func (p *provenClientConfigs) record(ext *runtimev1.ExtensionConfig) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byName == nil {
		p.byName = map[string]provenClientConfig{}
	}
	if last, ok := p.byName[ext.Name]; ok && last.uid == ext.UID && last.generation > ext.Generation {
		return
	}
	p.byName[ext.Name] = provenClientConfig{uid: ext.UID, generation: ext.Generation, clientConfig: *ext.Spec.ClientConfig.DeepCopy()}
}

// forget drops what is kept for a config that is gone.
func (p *provenClientConfigs) forget(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.byName, name)
}

// forgetObject drops what is kept for ext, and nothing kept for a config
// re-created under its name since.
func (p *provenClientConfigs) forgetObject(ext *runtimev1.ExtensionConfig) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if last, ok := p.byName[ext.Name]; ok && last.uid == ext.UID {
		delete(p.byName, ext.Name)
	}
}

// serving returns ext as its handlers are registered: with the last proven
// clientConfig of the same object when the spec's is not proven yet, and
// ext itself otherwise. Settings and namespaceSelector are always the
// spec's, and take effect at once.
func (p *provenClientConfigs) serving(ext *runtimev1.ExtensionConfig) *runtimev1.ExtensionConfig {
	p.mu.Lock()
	last, ok := p.byName[ext.Name]
	p.mu.Unlock()
	if !ok || last.uid != ext.UID || equality.Semantic.DeepEqual(last.clientConfig, ext.Spec.ClientConfig) {
		return ext
	}
	served := ext.DeepCopy()
	served.Spec.ClientConfig = *last.clientConfig.DeepCopy()
	return served
}

// servingAll is serving for every listed config.
func (p *provenClientConfigs) servingAll(exts []runtimev1.ExtensionConfig) []runtimev1.ExtensionConfig {
	out := make([]runtimev1.ExtensionConfig, len(exts))
	for i := range exts {
		p.observe(&exts[i])
		out[i] = *p.serving(&exts[i])
	}
	return out
}
