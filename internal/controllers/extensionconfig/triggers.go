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
	"encoding/json"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// settledStatus is the status a reconcile of a config left on the server
// (written, or found already right), and the resourceVersion it read or
// wrote it at.
type settledStatus struct {
	status          runtimev1.ExtensionConfigStatus
	resourceVersion string
}

// settle records ext's status as this controller leaves it. It is called
// before the write too, since the write's event may arrive before the
// write returns. The status goes through JSON, as through the apiserver,
// so that its times compare at the precision the event carries.
func (r *Reconciler) settle(ext *runtimev1.ExtensionConfig) {
	var status runtimev1.ExtensionConfigStatus
	data, err := json.Marshal(ext.Status)
	if err == nil {
		err = json.Unmarshal(data, &status)
	}
	if err != nil {
		// Not expected of a status that came from JSON: with no record,
		// the next status change runs one Discovery more, nothing worse.
		r.settled.Delete(ext.Name)
		return
	}
	r.settled.Store(ext.Name, settledStatus{status: status, resourceVersion: ext.ResourceVersion})
}

// everyChangePredicate passes what Cluster API's controller reconciles and
// discovers on, less what only we cause: every create, every update of the
// spec, labels or annotations, and every status another writer changed,
// each marking the config for Discovery. Resyncs, our own status writes
// and our own caBundle injection pass nothing.
func (r *Reconciler) everyChangePredicate() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool {
			// The initial list on taking the lead too: Cluster API
			// discovers every config at each start as leader.
			r.discoveryAsked.Store(e.Object.GetName(), true)
			return true
		},
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldExt, okOld := e.ObjectOld.(*runtimev1.ExtensionConfig)
			newExt, okNew := e.ObjectNew.(*runtimev1.ExtensionConfig)
			if !okOld || !okNew || oldExt.ResourceVersion == newExt.ResourceVersion || !r.notOwnInjection(e) {
				return false
			}
			if oldExt.Generation == newExt.Generation && !metadataChanged(oldExt, newExt) && !r.statusWrittenByAnother(oldExt, newExt) {
				return false
			}
			r.discoveryAsked.Store(newExt.Name, true)
			return true
		},
	}
}

// metadataChanged reports whether an update changed the metadata a user or
// a tool writes (labels, annotations, finalizers, owner references, ...),
// leaving out what every write changes (resourceVersion, managedFields).
func metadataChanged(oldExt, newExt *runtimev1.ExtensionConfig) bool {
	o, n := oldExt.ObjectMeta.DeepCopy(), newExt.ObjectMeta.DeepCopy()
	for _, m := range []*metav1.ObjectMeta{o, n} {
		m.ResourceVersion, m.ManagedFields, m.Generation = "", nil, 0
	}
	return !equality.Semantic.DeepEqual(o, n)
}

// statusWrittenByAnother reports whether an update changed the status to
// something this controller did not leave there: not an echo of our own
// write, nor of one older than it.
func (r *Reconciler) statusWrittenByAnother(oldExt, newExt *runtimev1.ExtensionConfig) bool {
	if equality.Semantic.DeepEqual(oldExt.Status, newExt.Status) {
		return false
	}
	v, ok := r.settled.Load(newExt.Name)
	if !ok {
		return true
	}
	settled := v.(settledStatus)
	if equality.Semantic.DeepEqual(settled.status, newExt.Status) {
		return false
	}
	// The event of a write we have since written over.
	cmp, err := resourceversion.CompareResourceVersion(newExt.ResourceVersion, settled.resourceVersion)
	return err != nil || cmp > 0
}

// takeDiscoveryRequest reports, once, whether an event asked for
// Discovery of a config.
func (r *Reconciler) takeDiscoveryRequest(name string) bool {
	_, asked := r.discoveryAsked.LoadAndDelete(name)
	return asked
}
