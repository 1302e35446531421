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

package objstatus

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Writes remembers the resourceVersion each object had after this
// controller's last status write, so that a reconcile never decides from a
// cached copy older than that write. Without it, an input that flips and
// flips back before the watch delivers the first write is reconciled
// against the pre-write copy: the second outcome equals that copy, the
// write is skipped, and the server keeps the first outcome for good. The
// zero value is ready to use; it is safe for concurrent use.
type Writes struct {
	mu      sync.Mutex
	written map[types.NamespacedName]string
}

// Fresh makes obj, just read from a cache, at least as new as the last
// write recorded for it: when the cached copy is older (or its
// resourceVersion does not compare), obj is read again from live, the
// apiserver. Once the cache has caught up the record is dropped.
func (w *Writes) Fresh(ctx context.Context, live client.Reader, obj client.Object) error {
	key := client.ObjectKeyFromObject(obj)
	w.mu.Lock()
	written, ok := w.written[key]
	w.mu.Unlock()
	if !ok {
		return nil
	}
	if cmp, err := resourceversion.CompareResourceVersion(obj.GetResourceVersion(), written); err == nil && cmp >= 0 {
		w.mu.Lock()
		if w.written[key] == written {
			delete(w.written, key)
		}
		w.mu.Unlock()
		return nil
	}
	if err := live.Get(ctx, key, obj); err != nil {
		return fmt.Errorf("read %s past the cache, which lags behind our last write: %w", key, err)
	}
	return nil
}

// Forget drops the record of an object that is gone.
func (w *Writes) Forget(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.written, key)
}

func (w *Writes) record(obj client.Object) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.written == nil {
		w.written = map[types.NamespacedName]string{}
	}
	w.written[client.ObjectKeyFromObject(obj)] = obj.GetResourceVersion()
}
