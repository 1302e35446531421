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
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/objstatus"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/controllers/watchfilter"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/userfacing"
)

// ResponseCachePolicy takes each config's max age; zero turns its caching
// off and drops what it held.
type ResponseCachePolicy interface {
	SetMaxAge(extensionConfig string, maxAge time.Duration)
}

// parseResponseCacheMaxAge reads userfacing.ResponseCacheMaxAgeAnnotation. present is
// false when it is not set; err names the annotation and the value when
// the value is not a positive duration.
func parseResponseCacheMaxAge(annotations map[string]string) (maxAge time.Duration, present bool, err error) {
	value, present := annotations[userfacing.ResponseCacheMaxAgeAnnotation]
	if !present {
		return 0, false, nil
	}
	maxAge, err = time.ParseDuration(value)
	if err != nil || maxAge <= 0 {
		return 0, true, fmt.Errorf("annotation %s has value %q, which is not a positive duration such as \"10m\"", userfacing.ResponseCacheMaxAgeAnnotation, value)
	}
	return maxAge, true, nil
}

// responseCacheMaxAge is how long the response cache may reuse ext's
// answers: its annotation's duration, or zero (nothing cached) for a
// config that is another manager's (watchFilterValue), paused, being
// deleted, or whose annotation is absent or not a positive duration. The
// informer of every replica and the leader's reconcile both read it, so
// that they agree.
func responseCacheMaxAge(ext *runtimev1.ExtensionConfig, watchFilterValue string) time.Duration {
	if !watchfilter.Matches(ext, watchFilterValue) || !ext.DeletionTimestamp.IsZero() {
		return 0
	}
	if _, paused := ext.Annotations[clusterv1.PausedAnnotation]; paused {
		return 0
	}
	maxAge, _, err := parseResponseCacheMaxAge(ext.Annotations)
	if err != nil {
		return 0
	}
	return maxAge
}

// forgetConfig drops what this reconciler keeps for a config it no longer
// reconciles (gone, paused or another manager's): its last Discovery and
// its response caching, as for a controller started now.
func (r *Reconciler) forgetConfig(extensionConfig string) {
	r.discovered.Delete(extensionConfig)
	r.ResponseCache.SetMaxAge(extensionConfig, 0)
}

// reconcileResponseCache gives the policy the config's max age, as every
// replica's informer does (responseCacheMaxAge), and reports it in userfacing.ResponsesCachedCondition. Nothing is called: the annotation
// changes no Discovery answer. A paused config caches nothing, and says so
// rather than keep a condition that promised answers from memory.
func (r *Reconciler) reconcileResponseCache(ext *runtimev1.ExtensionConfig, paused bool) {
	r.ResponseCache.SetMaxAge(ext.Name, responseCacheMaxAge(ext, r.WatchFilterValue))
	maxAge, present, err := parseResponseCacheMaxAge(ext.Annotations)
	switch {
	case !present:
		conditions := ext.GetConditions()
		meta.RemoveStatusCondition(&conditions, userfacing.ResponsesCachedCondition)
		ext.SetConditions(conditions)
	case paused:
		objstatus.SetCondition(ext, userfacing.ResponsesCachedCondition, metav1.ConditionFalse, userfacing.ResponseCachePausedReason,
			"the ExtensionConfig is paused: GeneratePatches and ValidateTopology answers are not cached until it is unpaused")
	case err != nil:
		objstatus.SetCondition(ext, userfacing.ResponsesCachedCondition, metav1.ConditionFalse, userfacing.InvalidResponseCacheMaxAgeReason,
			err.Error()+": GeneratePatches and ValidateTopology answers are not cached; set a duration or remove the annotation")
	default:
		objstatus.SetCondition(ext, userfacing.ResponsesCachedCondition, metav1.ConditionTrue, userfacing.ResponsesCachedReason,
			fmt.Sprintf("GeneratePatches and ValidateTopology answers are reused for up to %s (annotation %s)", maxAge, userfacing.ResponseCacheMaxAgeAnnotation))
	}
}
