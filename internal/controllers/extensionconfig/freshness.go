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
	"crypto/sha256"
	"encoding/json"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// discovery is the last successful Discovery of a config: what it asked
// with, when, and the handlers it wrote into status.
type discovery struct {
	inputs, handlers [sha256.Size]byte
	at               time.Time
}

// discoveryOf records a Discovery of ext that began at started and whose
// answer ext.Status.Handlers now holds.
func discoveryOf(ext *runtimev1.ExtensionConfig, started time.Time) discovery {
	return discovery{inputs: discoveryInputsOf(ext), handlers: handlersSum(ext.Status.Handlers), at: started}
}

// handlersSum sums the handlers a status records. A status that does not
// hold what the last Discovery wrote (its patch failed, or someone else
// wrote it) is not trusted: the next reconcile discovers again.
func handlersSum(handlers []runtimev1.ExtensionHandler) [sha256.Size]byte {
	encoded, _ := json.Marshal(handlers)
	return sha256.Sum256(encoded)
}

// discoveryInputsOf sums what a Discovery answer can depend on: where and
// how the extension is reached (a Discovery request carries no settings),
// and the value of userfacing.RediscoverAnnotation.
func discoveryInputsOf(ext *runtimev1.ExtensionConfig) [sha256.Size]byte {
	rediscover, asked := ext.Annotations[userfacing.RediscoverAnnotation]
	encoded, _ := json.Marshal(struct {
		ClientConfig runtimev1.ClientConfig `json:"clientConfig"`
		// Adding the annotation asks too, even with an empty value.
		Asked      bool   `json:"asked"`
		Rediscover string `json:"rediscover"`
	}{ext.Spec.ClientConfig, asked, rediscover})
	return sha256.Sum256(encoded)
}

// discoveryFresh reports whether ext's last Discovery still stands: it
// succeeded with ext's inputs less than interval ago, and status still
// holds its handlers and says so. It returns how long it still stands.
func (r *Reconciler) discoveryFresh(ext *runtimev1.ExtensionConfig, interval time.Duration) (time.Duration, bool) {
	v, ok := r.discovered.Load(ext.Name)
	if !ok {
		return 0, false
	}
	last := v.(discovery)
	remaining := interval - time.Since(last.at)
	if last.inputs != discoveryInputsOf(ext) || last.handlers != handlersSum(ext.Status.Handlers) || remaining <= 0 ||
		!meta.IsStatusConditionTrue(ext.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition) {
		return 0, false
	}
	return remaining, true
}
